"""A whole turn in one mail reply, with real SMTP both ways and a real worker applying the moves
(docs/notifications.md "Moves by reply"): every line above the quote is a move, tried on the
position the lines before it left, while the seat stays to act; the first line that cannot be
played stops the reply and is answered; each line played is its own mail-authorised entry, and
the audit verifies. Notation is read without regard to case or spacing, in every game."""

from __future__ import annotations

import copy
import json
import re
import textwrap
import threading
import time
from collections.abc import Callable
from email.message import EmailMessage
from typing import Any

import pytest
from parley_protocol.verify import verify_bundle

from engines.elfenland.race import travel
from engines.registry import get_engine
from engines.rng import SeededRng
from service.domain import mail_moves
from tests.notify.conftest import register, start_game
from tests.notify.test_mail_replies import Inbox, _answers, _text, _turn_mail, reply
from tests.players import TestPlayer

JOINED = {"seat_order": "joined"}
ANN, BOB = "ann@example.org", "bob@example.org"


@pytest.fixture
def inbox(napp):
    box = Inbox(napp, lmtp=False)
    yield box
    box.controller.stop()


def deliver(inbox: Inbox, work: Any, msg: EmailMessage, to: str,
            meanwhile: Callable[[], None] | None = None) -> None:
    """Send a reply while a real worker runs in this thread (after `meanwhile`, if given): the
    receiver waits for each line's move to be applied before it tries the next."""
    done = threading.Event()
    failed: list[BaseException] = []

    def send() -> None:
        try:
            inbox.send(msg, to)
        except BaseException as err:  # noqa: BLE001  # re-raised below, in the test's thread
            failed.append(err)
        finally:
            done.set()

    sender = threading.Thread(target=send)
    sender.start()
    if meanwhile is not None:
        meanwhile()
    while not done.wait(0.02):
        work()
    sender.join()
    work()
    if failed:
        raise failed[0]


def numbered(mail: EmailMessage) -> dict[int, str]:
    """The mail's numbered moves (the lines under "Your legal moves:"): number -> notation."""
    listed: dict[int, str] = {}
    for line in _text(mail).partition("Your legal moves:\n")[2].splitlines():
        found = re.fullmatch(r" +(\d+)  (\S.*)", line)
        if found is None:
            break
        listed[int(found[1])] = found[2]
    return listed


def said(mail: EmailMessage) -> str:
    return " ".join(_text(mail).split())


def api_move(client: Any, gid: str, player: TestPlayer, move: dict[str, Any]) -> None:
    view = client.get(f"/v1/games/{gid}/view", headers=player.auth).get_json()
    resp = client.post(f"/v1/games/{gid}/moves",
                       json=player.envelope(gid, view["seat"], view["step"], move))
    assert resp.status_code == 202, resp.get_json()


def _cartagena(nclient: Any, work: Any) -> tuple[TestPlayer, TestPlayer, str]:
    ann, bob = register(nclient, "Ann", ANN), register(nclient, "Bob", BOB)
    gid = start_game(nclient, [ann, bob], ruleset="cartagena", options=JOINED)
    work()
    return ann, bob, gid


def _three_plays(listed: dict[int, str]) -> list[tuple[int, str]]:
    """Three listed moves that play three different cards from the prison: (number, card)."""
    plays = {}
    for number, move in listed.items():
        words = move.split()
        if words[0] == "play" and words[2] == "prison":
            plays.setdefault(words[1], number)
    assert len(plays) >= 3, listed
    return [(number, card) for card, number in list(plays.items())[:3]]


def test_a_cartagena_turn_of_three_actions_in_one_reply(nclient, work, smtp, inbox) -> None:
    ann, bob, gid = _cartagena(nclient, work)
    turn = _turn_mail(smtp, ANN)
    assert "Reply with one move per line; a number means that move of this list" in said(turn)
    (one, first), (_, second), (three, third) = _three_plays(numbered(turn))
    words = f"{one}\nPLAY  {second.upper()}   Prison\n#{three}\n\n-- \nAnn\n"
    deliver(inbox, work, reply(turn, ANN, words), turn["Reply-To"])
    kind, detail = inbox.outcome()
    assert kind == "played" and inbox.handler.outcomes[-1].stopped is None
    seqs = [int(s) for s in detail.split()]
    assert seqs == [1, 2, 3]
    assert nclient.get(f"/v1/games/{gid}").get_json()["to_act"] == [1]  # the turn is over
    assert not _answers(smtp, ANN)
    # the same address again: its token made this reply's moves
    inbox.send(reply(turn, ANN, "end"), turn["Reply-To"])
    assert inbox.outcome() == ("answered", "token_spent")

    api_move(nclient, gid, bob, {"type": "resign"})
    work()
    audit = nclient.get(f"/v1/games/{gid}/audit").get_json()
    assert audit["status"] == "finished"
    by_mail = [e for e in audit["entries"] if e["envelope"]["key_id"] == "mail"]
    assert [e["seq"] for e in by_mail] == seqs
    assert all(e["status"] == "applied" for e in by_mail)
    assert [e["envelope"]["payload"]["move"] for e in by_mail] == [
        {"type": "play", "card": card, "from": "prison"} for card in (first, second, third)]
    # one token, one reply: the n-th line's nonce derives from the token and n
    token = mail_moves.token_of(turn["Reply-To"])
    assert [e["envelope"]["payload"]["nonce"] for e in by_mail] == [
        mail_moves.line_nonce(token, n) for n in (1, 2, 3)]
    report = verify_bundle(audit)
    assert report.ok, report.failure
    assert report.mail_authorised == seqs


def test_a_failing_line_stops_the_reply_and_is_answered(nclient, work, smtp, inbox) -> None:
    ann, bob, gid = _cartagena(nclient, work)
    turn = _turn_mail(smtp, ANN)
    listed = numbered(turn)
    (one, first), (_, second), (three, _) = _three_plays(listed)
    deliver(inbox, work, reply(turn, ANN, f"{one}\nfly away\n{three}\nend"), turn["Reply-To"])
    kind, detail = inbox.outcome()
    assert (kind, detail, inbox.handler.outcomes[-1].stopped) == ("played", "1", "bad_notation")
    entries = nclient.get(f"/v1/games/{gid}/audit").get_json()["entries"]
    assert len(entries) == 1  # nothing after the failed line was tried
    assert nclient.get(f"/v1/games/{gid}").get_json()["to_act"] == [0]

    (answer,) = _answers(smtp, ANN)
    assert answer["X-Parley-Answer"] == "bad_notation"
    assert answer["References"].split()[0] == f"<game-{gid}-{ann.id}@parley>"
    text = said(answer)
    assert f"Your reply made 1 move: line 1 ('{one}') as '{listed[one]}'." in text
    assert "Its line 2 ('fly away'): Cannot read 'fly away' as a Cartagena move" in text
    assert "Nothing after it was tried." in text and "Nothing was changed" not in text
    assert "Your legal moves:" in text  # the position now, numbered again
    assert answer["Reply-To"] not in (None, turn["Reply-To"])  # the spent address is not offered

    # the answer's address takes the rest of the turn
    again = numbered(answer)
    number = next(n for n, move in again.items() if move == f"play {second} prison")
    deliver(inbox, work, reply(answer, ANN, f"{number}\nEnd"), answer["Reply-To"])
    assert inbox.outcome() == ("played", "2 3")
    assert nclient.get(f"/v1/games/{gid}").get_json()["to_act"] == [1]
    audit = nclient.get(f"/v1/games/{gid}/audit").get_json()
    assert [e["envelope"]["payload"]["move"]["type"] for e in audit["entries"]] == [
        "play", "play", "end_turn"]
    assert {e["envelope"]["key_id"] for e in audit["entries"]} == {"mail"}
    assert verify_bundle(audit, partial=True).ok


def test_a_line_after_the_seats_turn_is_not_tried(nclient, work, smtp, inbox, napp) -> None:
    """Elfenland: a draft pick ends the seat's turn (the draft goes round the table), so the
    second line of the reply is not played; the move phase takes a travel step and its end."""
    engine = get_engine("elfenland")
    store = napp.extensions["parley_store"]
    players = [register(nclient, "Ann", ANN), register(nclient, "Bob", BOB)]
    gid = start_game(nclient, players, ruleset="elfenland", options=JOINED)
    work()
    state = _until(nclient, work, store, engine, gid, players, "draft")
    turn = _turn_mail(smtp, ANN)
    picks = [engine.format_move(m) for m in engine.legal_moves(state, 0)]
    words = f"{picks[0].title()}\n{picks[-1].upper()}"
    deliver(inbox, work, reply(turn, ANN, words), turn["Reply-To"])
    assert inbox.handler.outcomes[-1].stopped == "turn_over"
    assert inbox.outcome()[0] == "played"
    (answer,) = _answers(smtp, ANN)
    text = said(answer)
    assert f"Your reply made 1 move: line 1 ('{picks[0].title()}') as '{picks[0]}'." in text
    assert f"Its line 2 ('{picks[-1].upper()}'): Your turn ended with line 1" in text
    assert answer["Reply-To"] is None  # Bob's turn now

    state = _until(nclient, work, store, engine, gid, players, "move")
    turn = _turn_mail(smtp, ANN)
    step = _paid_steps(state, 0)[0]
    lines = [engine.format_move(step).upper().replace(" ", "  ")]
    after = copy.deepcopy(state)
    engine.apply(after, 0, step, SeededRng(0))
    more = _paid_steps(after, 0)
    if more:
        lines.append(engine.format_move(more[0]))
    lines.append("End")
    deliver(inbox, work, reply(turn, ANN, "\n".join(lines)), turn["Reply-To"])
    kind, detail = inbox.outcome()
    assert kind == "played" and inbox.handler.outcomes[-1].stopped is None
    assert len(detail.split()) == len(lines)
    audit = nclient.get(f"/v1/games/{gid}/audit").get_json()
    by_mail = [e for e in audit["entries"] if e["envelope"]["key_id"] == "mail"]
    assert [e["seq"] for e in by_mail][-len(lines):] == [int(s) for s in detail.split()]
    assert by_mail[-1]["envelope"]["payload"]["move"] == {"type": "end_move"}
    assert by_mail[-len(lines)]["envelope"]["payload"]["move"] == step
    assert verify_bundle(audit, partial=True).ok
    dec = store.state(gid)["dec"]
    assert not (dec["kind"] == "move" and 0 in dec["to_act"])  # her move is over


def _three_players(nclient: Any, work: Any) -> tuple[list[TestPlayer], str]:
    players = [register(nclient, "Ann", ANN), register(nclient, "Bob", BOB),
               register(nclient, "Cid", "cid@example.org")]
    gid = start_game(nclient, players, ruleset="cartagena", options=JOINED)
    work()
    return players, gid


def test_a_move_of_another_seat_in_between_is_judged_by_the_log(nclient, work, smtp, inbox,
                                                                napp) -> None:
    """Cid resigns while Ann's reply waits for its first line to be applied; his envelope names
    the step he saw, which Ann's line closed, so the rules refuse it and Ann's lines go on, each
    checked on the position the log really reached."""
    store = napp.extensions["parley_store"]
    (ann, bob, cid), gid = _three_players(nclient, work)
    turn = _turn_mail(smtp, ANN)
    (one, first), (two, second), (three, third) = _three_plays(numbered(turn))

    def cid_resigns() -> None:
        deadline = time.monotonic() + 10
        while store.meta(gid).get("head") != "1":  # the first line is in, not applied yet
            assert time.monotonic() < deadline
            time.sleep(0.01)
        api_move(nclient, gid, cid, {"type": "resign"})

    deliver(inbox, work, reply(turn, ANN, f"{one}\n{two}\n{three}"), turn["Reply-To"],
            cid_resigns)
    assert inbox.outcome() == ("played", "1 3 4")
    audit = nclient.get(f"/v1/games/{gid}/audit").get_json()
    assert [(e["seq"], e["status"], e.get("code")) for e in audit["entries"]] == [
        (1, "applied", None), (2, "rejected", "stale_step"), (3, "applied", None),
        (4, "applied", None)]
    assert [e["envelope"]["payload"]["move"]["card"] for e in audit["entries"]
            if e["envelope"]["key_id"] == "mail"] == [first, second, third]
    assert nclient.get(f"/v1/games/{gid}").get_json()["to_act"] == [1]


def test_a_decision_closed_by_another_seat_stops_the_reply(nclient, work, smtp, inbox,
                                                           napp) -> None:
    """After a line is applied, the next is tried only if no other seat's applied move closed
    a decision since: then the seat being asked now says nothing of whether it was still asked
    right after its own line."""
    store = napp.extensions["parley_store"]
    engine = get_engine("cartagena")
    (ann, bob, cid), gid = _three_players(nclient, work)
    turn = _turn_mail(smtp, ANN)
    (one, _), _, _ = _three_plays(numbered(turn))
    deliver(inbox, work, reply(turn, ANN, str(one)), turn["Reply-To"])
    assert inbox.outcome() == ("played", "1")
    ticket = mail_moves.ticket(store, mail_moves.token_of(turn["Reply-To"]))
    line = mail_moves.Line(1, str(one), 0)
    played = mail_moves.Played(line, "", 1)
    after = mail_moves.position_after(store, engine, ticket, played, time.monotonic() + 5)
    assert after["actions"] == 1 and engine.decision(after)["to_act"] == [0]
    api_move(nclient, gid, cid, {"type": "resign"})  # applied: it closes Ann's decision
    work()
    assert engine.decision(store.state(gid))["to_act"] == [0]  # Ann is asked, but anew
    with pytest.raises(mail_moves.Refusal) as refused:
        mail_moves.position_after(store, engine, ticket, played, time.monotonic() + 5)
    assert refused.value.code == "moved_on"


def _paid_steps(state: dict[str, Any], seat: int) -> list[dict[str, Any]]:
    """The seat's travel steps paid with cards it names (no caravan picks to follow)."""
    return [m for m in travel.legal_steps(state, seat)
            if all("cards" in s for s in m["steps"])]


def _until(client: Any, work: Any, store: Any, engine: Any, gid: str,
           players: list[TestPlayer], kind: str) -> dict[str, Any]:
    """Play by the API until Ann (seat 0) is asked a decision of `kind`: drafting the
    counters her cards pay for, and planning counters on roads she can then travel."""
    for _ in range(100):
        state = store.state(gid)
        dec = state["dec"]
        if dec["kind"] == kind and 0 in dec["to_act"]:
            return state
        for seat in dec["to_act"]:
            api_move(client, gid, players[seat], _choice(engine, state, seat))
        work()
    raise AssertionError(f"no {kind} decision for Ann")


def _choice(engine: Any, state: dict[str, Any], seat: int) -> dict[str, Any]:
    moves = list(engine.legal_moves(state, seat))
    kind = state["dec"]["kind"]
    if kind == "draft":
        hand = state["hand"][seat]
        takes = [m for m in moves if m["type"] == "take_counter"]
        return max(takes, key=lambda m: hand.get(m["counter"], 0)) if takes else moves[0]
    if kind == "plan":
        for move in moves if seat == 0 else ():
            if move["type"] == "place_counter":
                after = copy.deepcopy(state)
                engine.apply(after, seat, move, SeededRng(0))
                if len(_paid_steps(after, 0)) > len(_paid_steps(state, 0)):
                    return move
        return {"type": "pass"}
    return moves[0]


GAMES = [("stratego", {"army": "duel", **JOINED}), ("totohu", JOINED), ("cartagena", JOINED),
         ("stortebeker", JOINED), ("elfenland", JOINED), ("elfenland", {"mode": "war", **JOINED})]


def test_capitalised_notation_is_played_in_every_game(nclient, work, smtp, inbox,
                                                      napp) -> None:
    for i, (ruleset, options) in enumerate(GAMES):
        addresses = [f"ann{i}@example.org", f"bob{i}@example.org"]
        players = [register(nclient, f"Ann{i}", addresses[0]),
                   register(nclient, f"Bob{i}", addresses[1])]
        gid = start_game(nclient, players, ruleset=ruleset, options=options)
        work()
        seat = nclient.get(f"/v1/games/{gid}").get_json()["to_act"][0]
        turn = _turn_mail(smtp, addresses[seat])
        listed = numbered(turn)
        example = re.search(r"For example: '([^']+)'", _text(turn).replace("\n", " "))
        move = listed[0] if listed else example[1]
        shouted = f"  {move.upper().replace(' ', '  ')} "
        deliver(inbox, work, reply(turn, addresses[seat], shouted), turn["Reply-To"])
        assert inbox.outcome()[0] == "played", (ruleset, shouted, inbox.outcome())
        # the stored entry (a secret move's envelope is not in a running game's audit)
        store = napp.extensions["parley_store"]
        entries = store.entries(gid, 1, 9)
        assert len(entries) == 1, ruleset
        envelope = json.loads(entries[0][1]["env"])
        assert envelope["key_id"] == "mail", ruleset
        assert envelope["payload"]["move"] == get_engine(ruleset).parse_move(move), ruleset
        assert store.meta(gid)["applied"] == "1" and store.rejection(gid, 1) is None, ruleset


def test_a_reply_waits_a_bounded_time_for_its_moves(nclient, work, smtp, inbox,
                                                   monkeypatch) -> None:
    """With no worker to apply the first line, the receiver gives the rest up (the first line
    stands, and is applied once a worker runs) instead of holding the mail."""
    monkeypatch.setattr(mail_moves, "APPLY_WAIT", 0.5)
    ann, bob, gid = _cartagena(nclient, work)
    turn = _turn_mail(smtp, ANN)
    (one, first), (two, _), _ = _three_plays(numbered(turn))
    started = time.monotonic()
    inbox.send(reply(turn, ANN, f"{one}\n{two}"), turn["Reply-To"])
    assert time.monotonic() - started < 5
    assert (*inbox.outcome(), inbox.handler.outcomes[-1].stopped) == (
        "played", "1", "not_applied")
    assert "line 1 ('" + str(one) + "') is not applied yet" in said(_answers(smtp, ANN)[-1])
    work()
    (entry,) = nclient.get(f"/v1/games/{gid}/audit").get_json()["entries"]
    assert entry["status"] == "applied"
    assert entry["envelope"]["payload"]["move"] == {"type": "play", "card": first,
                                                    "from": "prison"}


def test_a_move_wrapped_by_the_mail_client_is_one_move(nclient, work, smtp, inbox,
                                                      napp) -> None:
    """A Stratego setup wrapped over lines of one paragraph: no line alone is a legal setup,
    so they are read joined, as one move; the line after the paragraph is the next move."""
    store = napp.extensions["parley_store"]
    ann, bob = register(nclient, "Ann", ANN), register(nclient, "Bob", BOB)
    gid = start_game(nclient, [ann, bob], options={"army": "duel", **JOINED})
    work()
    turn = _turn_mail(smtp, ANN)
    setup = re.search(r"For example: '(setup [^']+)'", _text(turn).replace("\n", " "))[1]
    wrapped = textwrap.wrap(setup.upper(), 18)
    assert len(wrapped) > 2
    deliver(inbox, work, reply(turn, ANN, "\n".join(wrapped)), turn["Reply-To"])
    assert inbox.outcome() == ("played", "1")
    (entry,) = store.entries(gid, 1, 9)
    assert json.loads(entry[1]["env"])["payload"]["move"] == \
        get_engine("stratego").parse_move(setup)
    assert store.rejection(gid, 1) is None and store.meta(gid)["applied"] == "1"


def test_a_reply_of_too_many_lines_plays_none(nclient, work, smtp, inbox) -> None:
    ann, bob, gid = _cartagena(nclient, work)
    turn = _turn_mail(smtp, ANN)
    words = "\n".join(["end"] * (mail_moves.MAX_LINES + 1))
    inbox.send(reply(turn, ANN, words), turn["Reply-To"])
    assert inbox.outcome() == ("answered", "too_many_lines")
    assert f"at most {mail_moves.MAX_LINES} moves" in said(_answers(smtp, ANN)[-1])
    assert not nclient.get(f"/v1/games/{gid}/audit").get_json()["entries"]
