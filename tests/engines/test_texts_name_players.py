"""Texts a person reads name players, never seat numbers, and hold no internal encodings
(engines/contract.py "Names in texts", "Results in words"): every engine's `render_text` along
random games of every variant, from every seat and a spectator's, with the players' names and
without them; the result of each game in words; and exact sentences for each engine's results.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from engines.contract import Engine, result_text
from engines.registry import available, get_engine
from engines.rng import SeededRng
from service.notify.prose import Story, result_sentence, seat_namer

NAMES = ["Ann", "Bob", "Carol", "Dan", "Eve", "Fay"]
#: a seat by its number ("seat 0", "Seat 2", "seats [0, 1]")
SEAT_NUMBER = re.compile(r"\bseats?\b\W{0,2}\d", re.IGNORECASE)
#: the encodings texts used to print: "prison[0x6,1x6]", "1:parrot", "winners [1]", "{'0': 2",
#: and identifiers such as "all_pirates_escaped" or "game_over"
ENCODED = re.compile(r"\w\[|\d:\w|\[\d|\{'|\b\d+x\d+\b|[a-z]_[a-z]")
#: sample this many states along each game
SAMPLES = 12


def _configs(engine: Engine) -> list[tuple[dict, int]]:
    counts = sorted({engine.min_players, engine.max_players})
    return [(dict(v.options), n) for v in engine.variants for n in counts]


def _game(engine: Engine, options: dict, seats: int, seed: int
          ) -> tuple[list[dict[str, Any]], list[tuple[int, dict]], dict[str, Any]]:
    """Views sampled along one random game (every seat's and a spectator's), its events (with
    their seq) and the final state."""
    chooser, rng = random.Random(seed), SeededRng(seed)
    state = engine.setup(engine.validate_options(options, seats), seats, rng)
    views: list[dict[str, Any]] = []
    events: list[tuple[int, dict]] = []
    played = 0
    while engine.result(state) is None:
        if played % 17 == 0 and len(views) < SAMPLES * (seats + 1):
            views += [engine.view(state, who) for who in [*range(seats), None]]
        seat = chooser.choice(engine.decision(state)["to_act"])
        move = chooser.choice(list(engine.legal_moves(state, seat)))
        state, told = engine.apply(state, seat, move, rng)
        played += 1
        events += [(played, e) for e in told]
    views += [engine.view(state, who) for who in [*range(seats), None]]
    return views, events, state


def _clean(text: str, where: str) -> None:
    assert not SEAT_NUMBER.search(text), f"{where} names a seat by number: {text}"
    found = ENCODED.search(text)
    assert found is None, f"{where} prints {found and found.group()!r}: {text}"


@pytest.mark.parametrize("ruleset", available())
def test_boards_results_and_events_name_players(ruleset: str) -> None:
    engine = get_engine(ruleset)
    for seed, (options, seats) in enumerate(_configs(engine)):
        views, events, final = _game(engine, options, seats, seed)
        names = NAMES[:seats]
        for view in views:
            named = engine.render_text(view, names)
            _clean(named, f"{ruleset} board")
            assert any(n in named for n in names), named
            unnamed = engine.render_text(view)  # a caller without names: "Player 2"
            _clean(unnamed, f"{ruleset} board without names")
        result = engine.result(final)
        for reader in [*range(seats), None]:
            name = seat_namer(names, reader)
            told = result_text(engine, result, name)
            assert told is not None, f"{ruleset} has no words for {result}"
            for sentence in (told, result_sentence({**result, "reason": "timeout"}, name,
                                                   seats, engine)):
                _clean(sentence, f"{ruleset} result")
                assert sentence[0].isupper() and sentence.endswith("."), sentence
            story = Story(name, engine)
            for seq, event in events:
                shown = engine.view_event(event, reader) if reader is not None else event
                sentence = story.sentence(seq, shown)
                if sentence:
                    _clean(sentence, f"{ruleset} event {event['type']}")


@pytest.mark.parametrize("ruleset, result, reader, told", [
    ("stratego", {"winners": [0], "scores": {"0": 2, "1": 2}, "reason": "flag_captured"}, 0,
     "You captured Bob's flag."),
    ("stratego", {"winners": [0], "scores": {"0": 2, "1": 2}, "reason": "flag_captured"}, 1,
     "Ann captured your flag."),
    ("stratego", {"winners": [1], "scores": {"0": 5, "1": 3}, "reason": "no_legal_move"}, None,
     "Ann could not move any piece, so Bob won."),
    ("stratego", {"winners": [], "scores": {"0": 9, "1": 9}, "reason": "no_battle_limit"}, 0,
     "The game is a draw: 200 plies passed without an attack."),
    ("stratego", {"winners": [1], "scores": {"0": 0, "1": 0}, "reason": "resigned"}, 1,
     "You won: Ann resigned."),
    ("cartagena", {"winners": [0], "scores": {"0": 6, "1": 4, "2": 1},
                   "reason": "all_pirates_escaped"}, 1,
     "Ann got all six pirates to safety first. Pirates safe: you 4, Carol 1."),
    ("cartagena", {"winners": [2], "scores": {"0": 1, "1": 0, "2": 3}, "reason": "resigned"}, 2,
     "You won as the last player left."),
    ("totohu", {"winners": [1], "scores": {"0": 7, "1": 8}, "reason": "one_fleet_left"}, 0,
     "Only one fleet was left at sea: Bob won. Points: you 7, Bob 8."),
    ("totohu", {"winners": [0], "scores": {"0": 9, "dummy": 6}, "reason": "one_fleet_left"}, 0,
     "Only one fleet was left at sea: you beat the dummy. Points: you 9, the dummy 6."),
    ("stortebeker", {"winners": [1], "scores": {"0": 46, "1": 48, "2": 12},
                     "reason": "final_round_complete"}, 2,
     "After the final round, Bob won. Points: Ann 46, Bob 48, you 12."),
    ("elfenland", {"winners": [1], "scores": {"0": 15, "1": 15, "2": 12},
                   "reason": "rounds_complete"}, 1,
     "After the last round, you won. Score: Ann 15, you 15, Carol 12."),
    ("elfenland", {"winners": [0], "scores": {"0": 3, "1": 0}, "reason": "last_army_standing"},
     1, "Ann's army was the last one standing: Ann won."),
    ("elfenland", {"winners": [0, 2], "scores": {"0": 5, "1": 2, "2": 5},
                   "reason": "round_limit"}, 1,
     "After the last round, Ann and Carol shared the win on towns held. Towns: Ann 5, you 2, "
     "Carol 5."),
])
def test_results_read_as_a_player_would_say_them(ruleset: str, result: dict, reader: int | None,
                                                 told: str) -> None:
    seats = len([s for s in result["scores"] if s.isdigit()])
    name = seat_namer(NAMES[:seats], reader)
    assert result_sentence(result, name, seats, get_engine(ruleset)) == told


def test_a_board_without_names_says_player_n_and_you() -> None:
    engine = get_engine("cartagena")
    state = engine.setup(engine.validate_options({}, 2), 2, SeededRng(1))
    text = engine.render_text(engine.view(state, 1))
    assert text.splitlines()[:2] == [
        "Cartagena (the escape) - Player 1's turn, 0 actions taken - you are Player 2",
        "Prison: Player 1 6, you 6"]
    named = engine.render_text(engine.view(state, 1), ["Ann", "Bob"])
    assert named.splitlines()[:2] == [
        "Cartagena (the escape) - Ann's turn, 0 actions taken - you are Bob",
        "Prison: Ann 6, you 6"]
    assert "Cards in hand: Ann 6, you 6; deck" in named
