"""Event sentences (`Engine.describe_event`, engines/contract.py "Event sentences"): every event
of random games gets a sentence from every seat's view, none tells what the view hides, and the
common ones read exactly as written. Mail (service/notify/prose.py) falls back to its generic
sentence where an engine has none."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest

from engines.contract import Engine
from engines.registry import available, get_engine
from engines.rng import SeededRng
from service.notify.prose import describe, seat_namer
from tests.engines.playout import random_playout

NAMES = ["Ann", "Bob", "Carol", "Dan", "Eve", "Fay"]

#: event types an engine tells in no line (the end, which a mail states once; bookkeeping)
SKIPPED = {
    "cartagena": {"game_ended", "turn_started"},
    "stortebeker": {"game_ended", "turn_started", "play_ended", "boarding_ended"},
    "totohu": {"game_over"},
    "stratego": {"game_over"},
    "elfenland": {"game_ended", "deck_shuffled", "display_refilled", "answered", "move_ended",
                  "selection_started", "unit_picked", "selection_cancelled", "turn_ended"},
}
#: engines whose views redact some events' fields (the leak check must have found some)
REDACTING = {"cartagena", "stortebeker", "elfenland"}
_BAD_AGREEMENT = re.compile(r"\byou (was|has|is|starts|moves)\b", re.IGNORECASE)


def _namer(reader: int, seats: int) -> Any:
    return seat_namer(NAMES[:seats], reader)


def _configs(engine: Engine) -> list[tuple[dict, int]]:
    """Every variant at the fewest and the most seats."""
    counts = sorted({engine.min_players, engine.max_players})
    return [(dict(v.options), n) for v in engine.variants for n in counts]


def _game_events(engine: Engine, options: dict, seats: int, seed: int) -> list[dict]:
    """The events of one random game (replayed from its moves), and those of a seat resigning
    halfway through it."""
    game = random_playout(engine, options, seats, seed)
    rng = SeededRng(seed)
    state = engine.setup(game.options, seats, rng)
    events: list[dict] = []
    for i, (seat, move) in enumerate(game.moves):
        if i == len(game.moves) // 2:
            quitter = engine.decision(state)["to_act"][0]
            _, resigned = engine.apply(copy.deepcopy(state), quitter, {"type": "resign"},
                                       SeededRng(seed))
            events += resigned
        state, told = engine.apply(state, seat, copy.deepcopy(move), rng)
        events += told
    return events


def _strings(value: Any) -> set[str]:
    """Every string an event holds: its values, and the kinds a tally names ({"dragon": 2})."""
    if isinstance(value, str):
        return {value}
    out: set[str] = set()
    if isinstance(value, list):
        for item in value:
            out |= _strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            out |= _strings(item)
        if value and all(isinstance(v, int) and not isinstance(v, bool)
                         for v in value.values()):
            out |= set(value)
    return out


def _check_sentence(ruleset: str, kind: str, sentence: Any) -> None:
    assert isinstance(sentence, str), f"{kind}: {sentence!r}"
    if not sentence:
        assert kind in SKIPPED[ruleset], f"{ruleset} tells {kind} in no line"
        return
    assert kind not in SKIPPED[ruleset] or kind == "turn_started", (kind, sentence)
    assert sentence[0].isupper() and sentence.endswith("."), sentence
    assert not set("_{}[]") & set(sentence), sentence
    assert "None" not in sentence and "  " not in sentence, sentence
    assert not _BAD_AGREEMENT.search(sentence), sentence


@pytest.mark.parametrize("ruleset", available())
def test_every_event_of_every_view_gets_a_sentence_that_leaks_nothing(ruleset: str) -> None:
    engine = get_engine(ruleset)
    seen: set[str] = set()
    redacted = 0
    for seed, (options, seats) in enumerate(_configs(engine)):
        for event in _game_events(engine, options, seats, seed):
            kind = event["type"]
            seen.add(kind)
            # after the end every event is shown in full: it gets a sentence too
            _check_sentence(ruleset, kind, engine.describe_event(event, _namer(0, seats)))
            for reader in range(seats):
                shown = engine.view_event(event, reader)
                if shown is None:
                    continue
                sentence = engine.describe_event(shown, _namer(reader, seats))
                _check_sentence(ruleset, kind, sentence)
                hidden = {h for h in _strings(event) - _strings(shown)
                          if len(h) >= 3 and not h.isdigit()}
                redacted += bool(hidden)
                told = sentence.lower()
                for value in hidden:
                    assert value.lower() not in told and \
                        value.replace("_", " ").lower() not in told, \
                        f"{kind} tells {reader} the hidden {value!r}: {sentence}"
    assert "resigned" in seen
    if ruleset in REDACTING:
        assert redacted > 0, "no redacted event was checked"


@pytest.mark.parametrize("ruleset", available())
def test_an_unknown_event_type_is_left_to_the_platform(ruleset: str) -> None:
    engine = get_engine(ruleset)
    assert engine.describe_event({"type": "no_such_event", "seat": 0}, _namer(0, 2)) is None


@pytest.mark.parametrize("ruleset", available())
def test_an_unknown_result_reason_and_a_timeout_are_left_to_the_platform(ruleset: str) -> None:
    engine = get_engine(ruleset)
    for reason in ("no_such_reason", "timeout"):
        result = {"winners": [0], "scores": {"0": 1, "1": 0}, "reason": reason}
        assert engine.describe_result(result, _namer(0, 2)) is None


def _told(ruleset: str, event: dict, reader: int, seats: int = 3) -> str | None:
    """The sentence `reader` gets for `event` as its view shows it (None: not shown)."""
    engine = get_engine(ruleset)
    shown = engine.view_event(event, reader)
    return None if shown is None else engine.describe_event(shown, _namer(reader, seats))


def test_cartagena_sentences() -> None:
    played = {"type": "played", "seat": 1, "card": "rum-05", "from": "prison", "to": 3}
    assert _told("cartagena", played, 0) == \
        "Bob played a rum card and moved a pirate from the prison to square 3."
    assert _told("cartagena", played, 1) == \
        "You played a rum card and moved a pirate from the prison to square 3."
    drew = {"type": "drew", "seat": 1, "cards": ["chest-15", "hook-02"]}
    assert _told("cartagena", drew, 1) == "You drew chest-15 and hook-02."
    assert _told("cartagena", drew, 0) == "Bob drew 2 cards."
    back = {"type": "moved_back", "seat": 0, "from": "ship", "to": 18, "draws": 2}
    assert _told("cartagena", back, 1) == "Ann moved a pirate back from the ship to square 18."
    morgan = {"type": "morgan", "seat": 0, "pirate_of": 1, "from": 5, "to": 6, "draws": 1}
    assert _told("cartagena", morgan, 1) == \
        "Ann called Morgan and moved your pirate from square 5 to square 6."
    sailed = {"type": "sailed", "seat": 2, "shore": "tortuga", "free": True}
    assert _told("cartagena", sailed, 0) == \
        "Carol sailed the ship to Tortuga (the captain's free sail)."
    took = {"type": "pistol_took", "seat": 0, "target": 1, "card": "hook-08"}
    assert _told("cartagena", took, 1) == "Ann took hook-08 from you with the pistol."
    assert _told("cartagena", took, 2) == "Ann took a card from Bob with the pistol."
    kept = {"type": "lantern_kept", "seat": 0, "keep": "parrot-06",
            "return": ["pistol-06", "parrot-10", "pistol-10"]}
    assert _told("cartagena", kept, 2) == \
        "Ann kept 1 card and put 3 cards back on top of the deck."
    dealt = {"type": "rum_dealt", "seat": 0, "keep": ["lantern-03", "lantern-12"],
             "give": [{"seat": 1, "card": "chest-03"}, {"seat": 2, "card": "hook-11"}],
             "discarded": []}
    assert _told("cartagena", dealt, 1) == \
        "Ann kept 2 cards and gave chest-03 to you and a card to Carol."
    owed = {"type": "discard_owed", "owed": {"1": 1, "2": 3}}
    assert _told("cartagena", owed, 1) == \
        "Rascals: you (1 card) and Carol (3 cards) must discard down to 7 cards."
    assert _told("cartagena", {"type": "chest_opened", "seat": 1, "square": 20,
                               "token": "snake"}, 0) == \
        "Bob opened the chest on square 20: the snake."
    assert _told("cartagena", {"type": "snake", "seat": 1, "from": 20, "to": "prison"}, 1) == \
        "The snake sent your pirate back from square 20 to the prison."
    assert _told("cartagena", {"type": "game_ended", "winners": [1],
                               "reason": "all_pirates_escaped"}, 0) == ""


def test_stortebeker_sentences() -> None:
    placed = {"type": "placed", "seat": 1, "ship": "black-4", "card": "pirate3-2"}
    assert _told("stortebeker", placed, 0) == "Bob placed a pirate at black-4."
    assert _told("stortebeker", placed, 1) == "You placed pirate3-2 at black-4."
    boarded = {"type": "boarded", "seat": 0, "ship": "blue-5", "dice": [1, 4], "value": 12,
               "defence": 10, "pirates": [3, 4], "success": True}
    assert _told("stortebeker", boarded, 1) == ("Ann boarded blue-5: dice 1+4, pirates 3 and 4, "
                                                "attack 12 against defence 10; the boarding "
                                                "succeeded.")
    hit = {"type": "cannon_hit", "die": 1, "ship": "blue-5", "from": 1, "card": "rum-04",
           "to": "discard"}
    assert _told("stortebeker", hit, 1) == \
        "Cannon die 1 hit your rum-04 at blue-5; it went to the discard pile."
    countered = {"type": "counter_attacked", "seat": 2, "ship": "black-3", "added": ["beans-05"],
                 "pirates": [], "dice": [6, 1], "value": 8, "leads": True}
    assert _told("stortebeker", countered, 0) == \
        "Carol counter-attacked at black-3, adding beans-05: dice 6+1, attack 8; Carol took " \
        "the lead."
    captured = {"type": "captured", "seat": 1, "ship": "black-3", "points": 4,
                "cards": ["beans-01"], "score": 9}
    assert _told("stortebeker", captured, 1) == "You captured black-3 for 4 points (score 9)."
    assert _told("stortebeker", {"type": "last_ship_sailed"}, 0) == \
        "The last ship has left the harbour: the next capture starts the final round."
    assert _told("stortebeker", {"type": "drew", "seat": 2, "cards": ["rum-08"]}, 0) == \
        "Carol drew 1 card."


def test_totohu_sentences() -> None:
    reveal = {"type": "reveal", "round": 1, "ships": {"0": "m2", "1": "p3", "2": "m1"}}
    assert _told("totohu", reveal, 0) == "Round 1 revealed your m2, Bob's p3 and Carol's m1."
    barrels = {"type": "effect", "side": "1", "ship": "m2", "effect": "barrel2", "hold": 1,
               "deck": 1, "discarded": 0}
    assert _told("totohu", barrels, 0) == \
        "Bob's m2 gained 2 barrels (1 on deck and 1 hidden in the hold)."
    assert _told("totohu", {"type": "encounter", "ships": [{"side": "0", "ship": "p1"},
                                                          {"side": "dummy", "ship": "h"}]},
                 0, seats=1) == "Your p1 met the dummy's h."
    assert _told("totohu", {"type": "departure", "side": "dummy", "ship": "p1",
                            "status": "sunk"}, 0, seats=1) == "The dummy's p1 sank."
    assert _told("totohu", {"type": "round_started", "round": 2, "starter": 0,
                            "to_act": [0, 1]}, 0) == "Round 2 began; you start."
    # blind play: an effect only its owner sees
    anchor = {"type": "effect", "side": "1", "ship": "h", "effect": "anchor", "audience": [1]}
    assert _told("totohu", anchor, 0) is None
    assert _told("totohu", anchor, 1) == "Your h dropped an anchor."


def test_stratego_sentences() -> None:
    assert _told("stratego", {"type": "ply", "ply": 3, "seat": 1, "uid": "b-a7", "from": "a7",
                              "to": "a6", "battle": None}, 0, seats=2) == "Bob moved a7-a6."
    attack = {"type": "ply", "ply": 9, "seat": 1, "uid": "b-e7", "from": "e7", "to": "e6",
              "battle": {"attacker": "b-e7", "defender": "r-e4", "attacker_piece": "miner",
                         "defender_piece": "scout", "result": "attacker_wins",
                         "removed": ["r-e4"]}}
    assert _told("stratego", attack, 0, seats=2) == \
        "Bob attacked e6 from e7: miner against scout; the miner won."
    started = {"type": "play_started", "active": 0}
    assert _told("stratego", started, 0, seats=2) == "Both setups are in; you move first."
    assert _told("stratego", started, 1, seats=2) == "Both setups are in; Ann moves first."


def test_elfenland_race_sentences() -> None:
    travelled = {"type": "travelled", "seat": 1, "to": "feodor", "form": "caravan",
                 "paid": {"elfcycle": 1, "magic_cloud": 1, "dragon": 1}, "collected": True,
                 "road": 22, "mode": "race"}
    assert _told("elfenland", travelled, 0) == (
        "Bob travelled to Feodor on road 22 by caravan for 1 elfcycle card, 1 magic cloud card "
        "and 1 dragon card and collected the town piece.")
    placed = {"type": "counter_placed", "seat": 0, "road": 8, "counter": "magic_cloud",
              "was_hidden": False, "mode": "race"}
    assert _told("elfenland", placed, 0) == "You placed a magic cloud counter on road 8."
    picked = {"type": "picked", "seat": 1, "private": {"1": {"card": "raft"}}, "mode": "race"}
    assert _told("elfenland", picked, 1) == "You picked a raft card."
    assert _told("elfenland", picked, 0) == "Bob picked a card."
    secret = {"type": "secret_counter", "seat": 2, "private": {"2": {"counter": "elfcycle"}},
              "mode": "race"}
    assert _told("elfenland", secret, 2) == "You drew a face-down counter: an elfcycle counter."
    assert _told("elfenland", secret, 0) == "Carol drew a face-down counter."
    dealt = {"type": "cards_dealt", "dealt": {"1": 4, "0": 5}, "deck": 24, "mode": "race",
             "private": {"0": {"hand": {"unicorn": 3, "raft": 5}},
                         "1": {"hand": {"dragon": 8}}}}
    assert _told("elfenland", dealt, 0, seats=2) == ("Travel cards were dealt: 4 cards to Bob "
                                                     "and 5 cards to you; your hand is now 3 "
                                                     "unicorn cards and 5 raft cards.")
    vote = {"type": "vote_result", "votes": {"1": True, "3": False}, "allow": 4, "forbid": 2,
            "mode": "race"}
    assert _told("elfenland", vote, 0) == "The vote kept the counter, 4 to 2."


def test_elfenland_war_sentences() -> None:
    attack = {"type": "attack", "seat": 1, "defender": 0, "from": "grangor", "road": 37,
              "target": "mahdavikia", "units": ["elfcycle"], "cards": {}, "attack_dice": [6],
              "defence_dice": [3], "attacker_losses": {}, "defender_losses": 1}
    assert _told("elfenland", attack, 0) == ("Bob attacked Mahdavikia, held by you, from "
                                             "Grangor on road 37 with an elfcycle: dice 6 "
                                             "against 3; you lost 1 unit.")
    assert _told("elfenland", {"type": "eliminated", "seat": 2}, 2) == \
        "You were eliminated: no units left on the board."
    assert _told("elfenland", {"type": "capital_captured", "seat": 1, "owner": 0,
                               "town": "strykhaven"}, 0) == \
        "Bob captured your capital Strykhaven."
    assert _told("elfenland", {"type": "round_started", "round": 3, "start": 2}, 0) == \
        "Round 3 began with Carol as the starting player."
    assert _told("elfenland", {"type": "traded", "seat": 0, "card": "dragon",
                               "town": "virst"}, 1) == \
        "Ann traded 3 dragon cards for a dragon in Virst."


class _OldEngine:
    """A third-party engine written before `describe_event` existed."""


def test_mail_uses_the_engines_sentence_and_falls_back_to_the_generic_one() -> None:
    cartagena = get_engine("cartagena")
    name = _namer(0, 3)
    played = {"type": "played", "seat": 1, "card": "rum-05", "from": 7, "to": 12}
    assert describe(played, name, cartagena) == \
        "Bob played a rum card and moved a pirate from square 7 to square 12."
    # no engine, or one without the method: the sentence derived from the fields
    assert describe(played, name) == describe(played, name, _OldEngine()) == \
        "Bob played (card rum-05)."
    # a type the engine does not tell, or a shape it does not expect (an older event)
    assert describe({"type": "brand_new", "seat": 2, "gold": 3}, name, cartagena) == \
        "Carol: brand new (gold 3)."
    assert describe({"type": "played", "seat": 1}, name, cartagena) == "Bob played."
    # a type the engine skips gets no line
    assert describe({"type": "turn_started", "seat": 1, "captain": False}, name,
                    cartagena) is None


def test_a_real_move_is_told_as_the_mover_and_the_others_read_it() -> None:
    """Cartagena's first legal `play` at setup, applied, told from both seats."""
    engine = get_engine("cartagena")
    state = engine.setup(engine.validate_options({}, 2), 2, SeededRng(3))
    move = next(m for m in engine.legal_moves(state, 0) if m["type"] == "play")
    _, events = engine.apply(state, 0, move, SeededRng(3))
    played = next(e for e in events if e["type"] == "played")
    symbol = move["card"].split("-")[0]
    for reader, who in ((0, "You"), (1, "Ann")):
        assert describe(engine.view_event(played, reader), _namer(reader, 2), engine) == (
            f"{who} played a {symbol} card and moved a pirate from the prison to square "
            f"{played['to']}.")
