"""Completeness of `legal_moves` (issue 58 point 7), shared by the per-engine tests.

Where a decision says `legal_moves_complete: true` (absent means true, as the platform reads
it), the listing must be exactly what `check` accepts. An engine's test enumerates the candidate
moves of a decision from the rules' move vocabulary, without asking `legal_moves`; this module
plays seeded random games, visits decision points, and compares

    {key(m) for m in candidates if check accepts m}  ==  {key(m) for m in legal_moves}

where `key` is the test's explicit equivalence (a multiset for identical cards, an optional
field at its default, a combined form standing for the start it begins with). A candidate whose
key is `ANY_LISTED` stands for "some listed move" (a random discard): it must be accepted
exactly when the listing is not empty. Every listed move must also be accepted by `check`.
"""

from __future__ import annotations

import json
import os
import random
from collections import Counter
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from typing import Any

import orjson

from engines.contract import Engine, IllegalMove, Move, State
from engines.rng import SeededRng

#: a key for candidates that stand for any listed move (see the module docstring)
ANY_LISTED = ("<any listed move>",)
#: how many offending moves a failure message shows
SHOWN = 12

Candidates = Callable[[State, int], Iterable[Move]]
KeyFn = Callable[[State, int, Move], Hashable]
Chooser = Callable[[list[Move], random.Random], Move]


def games(default: int) -> int:
    """Random games per test: `PARLEY_COMPLETENESS_GAMES` for a long run, else `default`."""
    return int(os.environ.get("PARLEY_COMPLETENESS_GAMES", default))


def canonical_key(state: State, seat: int, move: Move) -> Hashable:
    """The move itself as its canonical JSON: no equivalence beyond key order."""
    return orjson.dumps(move, option=orjson.OPT_SORT_KEYS).decode()


def uniform(moves: list[Move], chooser: random.Random) -> Move:
    return chooser.choice(moves)


def preferring(types: Iterable[str], share: float = 0.9) -> Chooser:
    """A chooser that mostly picks moves of `types`: uniform play mostly passes, and the
    decisions worth comparing (travel, picks, attacks) would seldom be reached."""
    wanted = frozenset(types)

    def choose(moves: list[Move], chooser: random.Random) -> Move:
        busy = [m for m in moves if m.get("type") in wanted]
        return chooser.choice(busy if busy and chooser.random() < share else moves)
    return choose


@dataclass
class Completeness:
    """One engine's comparison: its candidates and equivalence, and how games are driven."""

    engine: Engine
    candidates: Candidates
    key: KeyFn = canonical_key
    choose: Chooser = uniform
    #: chance of comparing at a decision point whose kind this game has already compared
    rate: float = 0.2
    #: step kind -> comparisons made (one per seat and decision point), over every game
    compared: Counter[str] = field(default_factory=Counter)

    def accepts(self, state: State, seat: int, move: Move) -> bool:
        try:
            self.engine.check(state, seat, move)
        except IllegalMove:
            return False
        return True

    def compare(self, state: State, seat: int) -> None:
        """Assert that `check` accepts exactly the listed moves of `seat`, up to `key`."""
        before = orjson.dumps(state, option=orjson.OPT_SORT_KEYS)
        listed = list(self.engine.legal_moves(state, seat))
        refused = [f"{json.dumps(m)} -> {_code(self.engine, state, seat, m)}"
                   for m in listed if not self.accepts(state, seat, m)]
        want = {self.key(state, seat, m) for m in listed}
        got: dict[Hashable, Move] = {}
        stand_ins: list[tuple[Move, bool]] = []
        for move in self.candidates(state, seat):
            k = self.key(state, seat, move)
            if k == ANY_LISTED:
                stand_ins.append((move, self.accepts(state, seat, move)))
            elif k not in got and self.accepts(state, seat, move):
                got[k] = move
        wrong = [m for m, ok in stand_ins if ok != bool(listed)]
        missing = [m for m in listed if self.key(state, seat, m) not in got]
        extra = [m for k, m in got.items() if k not in want]
        assert orjson.dumps(state, option=orjson.OPT_SORT_KEYS) == before, \
            "check changed the state"
        if refused or missing or extra or wrong:
            raise AssertionError(self._report(state, seat, refused, missing, extra, wrong))
        self.compared[self.engine.decision(state)["step_kind"]] += 1

    def _report(self, state: State, seat: int, refused: list[str], missing: list[Move],
                extra: list[Move], wrong: list[Move]) -> str:
        decision = self.engine.decision(state)
        lines = [f"seat {seat} at {json.dumps(decision)}"]
        for title, items in (
            ("listed but refused by check", refused),
            ("listed but not among the accepted candidates (candidate space too small?)",
             missing),
            ("accepted by check but not listed", extra),
            ("stand-ins whose acceptance disagrees with the listing being non-empty", wrong),
        ):
            if items:
                lines.append(f"{title} ({len(items)}):")
                lines += [f"  {m if isinstance(m, str) else json.dumps(m)}"
                          for m in items[:SHOWN]]
        try:
            lines.append(self.engine.render_text(self.engine.view(state, seat)))
        except Exception as err:  # the report must not hide the failure it reports
            lines.append(f"(no text view: {err!r})")
        return "\n".join(lines)

    def play(self, options: dict[str, Any], seats: int, seed: int,
             max_moves: int = 20_000) -> None:
        """One seeded random game, comparing for every seat asked at the first decision point
        of each kind and at a share `rate` of the others; at a first one also for a seat not
        asked (which must have nothing listed and nothing accepted)."""
        chooser = random.Random(seed)
        rng = SeededRng(seed)
        engine = self.engine
        state = engine.setup(engine.validate_options(options, seats), seats, rng)
        seen: set[str] = set()
        for made in range(max_moves):
            if engine.result(state) is not None:
                return
            decision = engine.decision(state)
            kind = decision["step_kind"]
            if decision.get("legal_moves_complete", True) and (
                    kind not in seen or chooser.random() < self.rate):
                where = f"{options} / {seats} seats / seed {seed} / after {made} moves"
                self._visit(state, seats, decision["to_act"], kind not in seen, chooser, where)
                seen.add(kind)
            seat = chooser.choice(decision["to_act"])
            move = self.choose(list(engine.legal_moves(state, seat)), chooser)
            state, _events = engine.apply(state, seat, move, rng)
        raise AssertionError(f"game {options} / {seats} seats / seed {seed} did not end")

    def _visit(self, state: State, seats: int, to_act: list[int], first: bool,
               chooser: random.Random, where: str) -> None:
        """Compare for the seats asked (and, at a kind's first point, one seat not asked),
        naming the game and the point in a failure."""
        idle = [s for s in range(seats) if s not in to_act] if first else []
        for seat in [*to_act, *chooser.sample(idle, min(1, len(idle)))]:
            try:
                self.compare(state, seat)
            except AssertionError as err:
                raise AssertionError(f"{where}\n{err}") from None


def _code(engine: Engine, state: State, seat: int, move: Move) -> str:
    try:
        engine.check(state, seat, move)
    except IllegalMove as err:
        return err.code
    return "accepted"
