"""Mails of every game name the players and never a seat number: a few moves of each engine
through the server, then a resignation, read from the real SMTP server. The board is drawn
with the players' names, and the end mail states the result as the engine words it."""

from __future__ import annotations

import re

import pytest

from tests.engines.test_texts_name_players import ENCODED, SEAT_NUMBER
from tests.notify.conftest import register, start_game

#: each game, and how the winner's end mail states Bob's resignation
GAMES = [
    ("stratego", {"army": "duel"}, "You won: Bob resigned."),
    ("totohu", {}, "You won: Bob resigned. Points: "),
    ("cartagena", {}, "You won: Bob resigned."),
    ("stortebeker", {}, "You won: Bob resigned."),
    ("elfenland", {}, "You won: Bob resigned."),
    ("elfenland", {"mode": "war"}, "Your army was the last one standing: you won."),
]
#: where a mail's own words end: the legal moves (in the game's notation) and the footer
_PROSE_ENDS = re.compile(r"\nYour legal moves:|\nThere are many legal moves|\nAny valid "
                         r"arrangement|\n-- \n")


def _text(msg) -> str:
    return msg.get_body(preferencelist=("plain",)).get_content().replace("\r\n", "\n")


def _play_a_little(client, gid: str, players: list, work, rounds: int = 6) -> None:
    """Each seat asked to act plays its first legal move, a few times over."""
    for _ in range(rounds):
        summary = client.get(f"/v1/games/{gid}").get_json()
        if summary["status"] != "active":
            return
        for seat in summary["to_act"]:
            view = client.get(f"/v1/games/{gid}/view", headers=players[seat].auth).get_json()
            env = players[seat].envelope(gid, seat, view["step"], view["legal_moves"][0])
            assert client.post(f"/v1/games/{gid}/moves", json=env).status_code == 202
        work()


@pytest.mark.parametrize("ruleset, options, ann_reads", GAMES)
def test_every_mail_names_players_never_seats(nclient, work, smtp, ruleset: str,
                                              options: dict, ann_reads: str) -> None:
    ann = register(nclient, "Ann", "ann@example.org")
    bob = register(nclient, "Bob", "bob@example.org")
    gid = start_game(nclient, [ann, bob], ruleset=ruleset,
                     options={**options, "seat_order": "joined"})
    work()
    _play_a_little(nclient, gid, [ann, bob], work)
    step = nclient.get(f"/v1/games/{gid}").get_json()["step"]
    resign = bob.envelope(gid, 1, step, {"type": "resign"})
    assert nclient.post(f"/v1/games/{gid}/moves", json=resign).status_code == 202
    work()
    assert nclient.get(f"/v1/games/{gid}").get_json()["status"] == "finished"

    assert len(smtp.messages) >= 6
    for msg in smtp.messages:
        text = _text(msg)
        assert not SEAT_NUMBER.search(text), text
        prose = _PROSE_ENDS.split(text)[0]
        found = ENCODED.search(prose)
        assert found is None, f"{found and found.group()!r} in:\n{prose}"
    boards = [_text(m) for m in smtp.to("ann@example.org")
              if m["X-Parley-Event"] == "turn.started"]
    assert boards and all("Bob" in b.split("\n-- \n")[0] for b in boards)
    ann_end, bob_end = (_text(smtp.to(a)[-1]) for a in ("ann@example.org", "bob@example.org"))
    assert f"\n\n{ann_reads}" in ann_end
    assert "\n- Bob resigned.\n" in ann_end and "\n- You resigned.\n" in bob_end
