"""The platform's own words (service/notify/prose.py): a seat that ran out of time, the generic
result sentences, and names where a seat has none ("Player 3", never "seat 2")."""

from __future__ import annotations

from engines.registry import get_engine
from service.notify.prose import Story, describe, result_sentence, seat_namer

NAMES = ["Ann", "Bob", "Carol"]


def test_a_timeout_is_told_as_what_it_was() -> None:
    name = seat_namer(NAMES[:2], 0)
    assert describe({"type": "timeout", "seat": 1, "forfeit": True}, name) == \
        "Bob ran out of time and forfeited."
    assert describe({"type": "timeout", "seat": 0, "forfeit": False}, name) == \
        "You ran out of time; the server played the game's default move for you."


def test_a_forfeit_is_not_told_again_as_a_resignation() -> None:
    story = Story(seat_namer(NAMES[:2], 0), get_engine("stratego"))
    told = [story.sentence(seq, event) for seq, event in [
        (4, {"type": "timeout", "seat": 1, "forfeit": True}),
        (4, {"type": "resigned", "seat": 1}),  # the rules' record of the same forfeit
        (5, {"type": "resigned", "seat": 0}),  # a resignation of the player's own, later
    ]]
    assert told == ["Bob ran out of time and forfeited.", None, "You resigned."]


def test_the_platforms_timeout_result_names_who_ran_out_of_time() -> None:
    stratego = get_engine("stratego")
    result = {"winners": [0], "scores": {"0": 3, "1": 1}, "reason": "timeout"}
    assert result_sentence(result, seat_namer(NAMES[:2], 0), 2, stratego) == \
        "You won: Bob ran out of time."
    assert result_sentence(result, seat_namer(NAMES[:2], 1), 2, stratego) == \
        "Ann won: you ran out of time."
    # with several others out, the result does not say which of them the clock took
    many = {"winners": [2], "scores": {"0": 0, "1": 0, "2": 0}, "reason": "timeout"}
    assert result_sentence(many, seat_namer(NAMES, 0), 3, get_engine("cartagena")) == \
        "Carol won on time."


class _OldEngine:
    """An engine written before `describe_result` existed."""


def test_without_the_engines_words_the_generic_sentence_stands() -> None:
    name = seat_namer(NAMES[:2], 1)
    result = {"winners": [0], "scores": {"0": 2, "1": 1}, "reason": "most_gold"}
    assert result_sentence(result, name, 2, _OldEngine()) == \
        "Ann won: most gold. Score: Ann 2, you 1."
    assert result_sentence({**result, "reason": "resigned"}, name, 2) == "Ann won: you resigned."
    assert result_sentence({"winners": [], "scores": {}, "reason": "both_stuck"}, name, 2) == \
        "Nobody won: both stuck."


def test_a_seat_without_a_name_is_a_player_number() -> None:
    name = seat_namer(["Ann", ""], 0)
    assert [name(0), name(1), name(2)] == ["you", "Player 2", "Player 3"]
