"""Whole games played by mail replies alone, with real SMTP both ways and real workers
(docs/notifications.md "Moves by reply"; issue 61, "Play by email, whole turns"): a Cartagena
game of three players played to its result by replies that each play a whole turn (one of
them stopped by a line in its middle that cannot be played), and an Elfenland game played
round after round by replies (draft picks, planning counters, travel steps), several lines a
reply where the rules let one seat act several times in a row. Each game's audit verifies and
names as mail-authorised exactly the moves the replies made. A move written in capitals with
extra spaces is played by mail in every game.

Moves are chosen by a simple fixed policy, planned on a copy of the server's position, and
written as the turn mail the player received numbers them where it lists them, else in the
game's notation."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from email.message import EmailMessage
from typing import Any

import pytest
from parley_protocol.verify import verify_bundle
from rq import SimpleWorker

from engines.contract import IllegalMove
from engines.elfenland.race import travel
from engines.registry import get_engine
from engines.rng import SeededRng
from service.notify.replies import Outcome
from tests.notify import conftest as notify_conftest
from tests.notify.conftest import Mailbox, register, start_game
from tests.notify.test_mail_replies import Inbox, _answers, _text, reply
from tests.notify.test_mail_whole_turns import deliver, numbered, said
from tests.players import TestPlayer

JOINED = {"seat_order": "joined"}
#: the `short` variant (4 tiles, 4 pirates a crew): some 30 turns with the policy below
SHORT_CARTAGENA = {"tiles": 4, "pirates": 4, **JOINED}
#: the English edition's three rounds
ELFENLAND = {"rounds": 3, **JOINED}


class QuietWorker(SimpleWorker):
    """A real RQ worker without RQ's command channel, which no test uses: closing the
    channel's thread takes some 0.2 s a run, and a whole game runs the worker some 100
    times."""

    def subscribe(self) -> None:
        pass


@pytest.fixture(autouse=True)
def quiet_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    """`work` and `register` (tests/notify/conftest.py) run QuietWorkers here."""
    monkeypatch.setattr(notify_conftest, "SimpleWorker", QuietWorker)


@pytest.fixture
def inbox(napp):
    box = Inbox(napp, lmtp=False)
    yield box
    box.controller.stop()


@dataclass
class MailTable:
    """A game whose players play only by replying to the mails they receive."""

    client: Any
    work: Callable[..., None]
    smtp: Mailbox
    inbox: Inbox
    store: Any
    ruleset: str
    names: list[str]
    gid: str = ""
    players: list[TestPlayer] = field(default_factory=list)
    #: the seqs of the moves the replies made, in order
    by_mail: list[int] = field(default_factory=list)

    @property
    def engine(self) -> Any:
        return get_engine(self.ruleset)

    def address(self, seat: int) -> str:
        return f"{self.names[seat].lower()}@example.org"

    def start(self, options: dict[str, Any]) -> None:
        self.players = [register(self.client, name, self.address(seat))
                        for seat, name in enumerate(self.names)]
        self.gid = start_game(self.client, self.players, ruleset=self.ruleset, options=options)
        self.work()

    def summary(self) -> dict[str, Any]:
        resp = self.client.get(f"/v1/games/{self.gid}")
        assert resp.status_code == 200, resp.get_json()
        return resp.get_json()

    def legal_now(self, seat: int) -> list[str]:
        """The seat's legal moves as the API lists them, in the game's notation."""
        view = self.client.get(f"/v1/games/{self.gid}/view",
                               headers=self.players[seat].auth).get_json()
        return [self.engine.format_move(m) for m in view["legal_moves"]]

    def state(self) -> dict[str, Any]:
        return self.store.state(self.gid)

    def mail(self, seat: int) -> EmailMessage:
        """The mail the seat's player answers now: the latest one to them that asks for a
        move at the game's current step (a turn mail, or an answer to a reply), by its
        footer, with its reply address."""
        step = self.summary()["step"]
        footer = re.compile(rf"^Game {self.gid} \({self.ruleset}\), step {step}\b", re.M)
        asking = [m for m in self.smtp.to(self.address(seat))
                  if m["Reply-To"] and footer.search(_text(m))]
        assert asking, f"no mail asks {self.names[seat]} to move at step {step}"
        return asking[-1]

    def send(self, seat: int, mail: EmailMessage, lines: list[str]) -> Outcome:
        """Reply to `mail` with these lines over SMTP, a real worker applying the moves."""
        deliver(self.inbox, self.work, reply(mail, self.address(seat), "\n".join(lines)),
                mail["Reply-To"])
        outcome = self.inbox.handler.outcomes[-1]
        if outcome.kind == "played":
            self.by_mail += [int(seq) for seq in outcome.detail.split()]
        return outcome

    def audit(self) -> dict[str, Any]:
        resp = self.client.get(f"/v1/games/{self.gid}/audit")
        assert resp.status_code == 200, resp.get_json()
        return resp.get_json()

    def check_audit(self) -> None:
        """The finished game's audit verifies, and it names as mail-authorised exactly the
        moves the replies made (every move of the game)."""
        audit = self.audit()
        assert audit["status"] == "finished"
        entries = audit["entries"]
        assert [e["seq"] for e in entries if e["envelope"]["key_id"] == "mail"] == self.by_mail
        assert len(self.by_mail) == len(entries)  # nobody moved otherwise
        assert all(e["status"] == "applied" for e in entries)
        report = verify_bundle(audit)
        assert report.ok, report.failure
        assert report.complete
        assert report.mail_authorised == self.by_mail
        assert f"mail-authorised: {len(self.by_mail)} entries" in report.render()
        assert report.render().endswith("\nVERIFIED")


def written(engine: Any, move: dict[str, Any], listed: dict[int, str], k: int) -> str:
    """A move as a player writes it (`k` varies the writing): its number in the mail, where
    the mail lists it, for even `k`; else its notation, in capitals where 3 divides `k`."""
    text = engine.format_move(move)
    numbers = [number for number, listed_move in listed.items() if listed_move == text]
    if numbers and k % 2 == 0:
        return str(numbers[0])
    return text.upper() if k % 3 == 0 else text


def lines_for(engine: Any, moves: list[dict[str, Any]], listed: dict[int, str],
              n: int) -> list[str]:
    """The lines of reply `n`: the first by its number where the mail lists it, the others
    by number or notation, varied from reply to reply. A number on a later line is the
    mail's move of that number, tried where the lines above leave the game."""
    return [written(engine, move, listed, 0 if i == 0 else n + i)
            for i, move in enumerate(moves)]


# ---- Cartagena --------------------------------------------------------------------------------


def _spot(location: str) -> int:
    return 0 if location == "prison" else 99 if location == "ship" else int(location)


def _progress(engine: Any, state: dict[str, Any], seat: int) -> int:
    pirates = engine.view(state, seat)["pirates"][str(seat)]
    return sum(_spot(location) * n for location, n in pirates.items())


def cartagena_turn(engine: Any, state: dict[str, Any],
                   seat: int) -> tuple[list[dict[str, Any]], bool]:
    """The seat's whole turn by a simple policy, planned on a copy of the position, and whether
    it wins the game: each action plays the card (of the hand the turn started with) that
    takes the crew furthest while more than one is left, else moves the pirate back that brings
    the most cards and loses the least ground; with neither, it ends the turn (or passes, with
    no cards). Cards drawn in the turn are not counted on. (Three such players end a short
    game in some 30 turns, at most 50 in 200 simulated games.)"""
    state = copy.deepcopy(state)
    hand = list(engine.view(state, seat)["hand"])
    turn: list[dict[str, Any]] = []

    def after(move: dict[str, Any]) -> tuple[int, int]:
        board = copy.deepcopy(state)
        engine.apply(board, seat, move, SeededRng(0))
        return len(engine.view(board, seat)["hand"]), _progress(engine, board, seat)

    while seat in engine.decision(state)["to_act"] and engine.result(state) is None:
        moves = list(engine.legal_moves(state, seat))
        plays = [m for m in moves if m["type"] == "play" and m["card"] in hand]
        backs = [m for m in moves if m["type"] == "back"]
        if plays and (len(hand) > 1 or not backs):
            move = max(plays, key=lambda m: after(m)[1])
            hand.remove(move["card"])
        elif backs:
            move = max(backs, key=after)
        else:
            move = next(m for m in moves if m["type"] in ("end_turn", "pass"))
        engine.apply(state, seat, move, SeededRng(0))
        turn.append(move)
    return turn, engine.result(state) is not None


def _not_held(hand: list[str]) -> str:
    return next(f"{symbol}-{i:02d}" for symbol in ("chest", "hook", "lantern")
                for i in range(17, 0, -1) if f"{symbol}-{i:02d}" not in hand)


#: the reply (from 0) from which on the first turn of three actions that starts with two
#: cards gets a line that cannot be played after those two
BROKEN_FROM = 4


@pytest.mark.slow
def test_a_cartagena_game_of_three_is_played_to_its_end_by_replies(nclient, work, smtp, inbox,
                                                                   napp) -> None:
    table = MailTable(nclient, work, smtp, inbox, napp.extensions["parley_store"], "cartagena",
                      ["Ann", "Bob", "Cid"])
    table.start(SHORT_CARTAGENA)
    engine = table.engine
    broken = None
    replies = 0
    for n in range(150):
        summary = table.summary()
        if summary["status"] == "finished":
            break
        (seat,) = summary["to_act"]
        mail = table.mail(seat)
        listed = numbered(mail)
        legal = table.legal_now(seat)
        if len(legal) <= 40:  # the mail numbers the moves as the API lists them
            assert list(listed.values()) == legal and list(listed) == list(range(len(legal)))
        turn, wins = cartagena_turn(engine, table.state(), seat)
        lines = lines_for(engine, turn, listed, n)
        if broken is None and n >= BROKEN_FROM and len(turn) == 3 and not wins and \
                turn[0]["type"] == turn[1]["type"] == "play":
            broken = seat
            mail = _broken_reply(table, seat, mail, lines[:2], turn[:2])
            replies += 1
            turn, wins = cartagena_turn(engine, table.state(), seat)  # the rest of the turn
            lines = lines_for(engine, turn, numbered(mail), n)
        if wins:
            lines.append("End")  # after the winning move: not tried
        outcome = table.send(seat, mail, lines)
        replies += 1
        assert outcome.kind == "played", (lines, outcome)
        assert len(outcome.detail.split()) == len(turn)
        if wins:
            assert outcome.stopped == "game_over"
            _game_over_answer(table, seat, lines)
        else:  # the whole turn was played: the next seat's turn
            assert outcome.stopped is None, (lines, outcome)
            assert table.summary()["to_act"] == [(seat + 1) % 3], lines
    else:
        raise AssertionError("the game did not end")
    assert broken is not None

    result = table.summary()["result"]
    assert result["reason"] == "all_pirates_escaped"
    assert result["winners"] == [seat]  # the last reply won it
    assert result["scores"][str(seat)] == 4
    view = nclient.get(f"/v1/games/{table.gid}/view", headers=table.players[seat].auth)
    assert view.get_json()["state"]["pirates"][str(seat)] == {"ship": 4}
    for reader in range(3):
        (ended,) = [m for m in smtp.to(table.address(reader))
                    if m["X-Parley-Event"] == "game.finished"]
        who = "You" if reader == seat else table.names[seat]
        assert f"{who} got all four pirates to safety first." in said(ended)
    # two answers: to the broken reply, and to the line after the winning move
    answers = [len(_answers(smtp, table.address(reader))) for reader in range(3)]
    assert sum(answers) == 2 and answers[broken] >= 1 and answers[seat] >= 1
    assert replies >= 20 and len(table.by_mail) > 2 * replies  # whole turns, not single moves
    table.check_audit()


def _broken_reply(table: MailTable, seat: int, mail: EmailMessage, before: list[str],
                  moves: list[dict[str, Any]]) -> EmailMessage:
    """A reply whose third line names a card the player does not hold: the two lines before it
    are played, nothing after it is tried, and the answer says so, with the moves now;
    -> the answer, to which the rest of the turn replies."""
    engine = table.engine
    hand = engine.view(table.state(), seat)["hand"]
    bad = f"PLAY  {_not_held(hand).upper()}  PRISON"
    after = copy.deepcopy(table.state())
    for move in moves:
        engine.apply(after, seat, move, SeededRng(0))
    with pytest.raises(IllegalMove) as why:
        engine.check(after, seat, engine.parse_move(bad))
    assert why.value.code == "card_not_in_hand"
    step, entries = table.summary()["step"], len(table.audit()["entries"])
    outcome = table.send(seat, mail, [*before, bad, "End"])
    assert (outcome.kind, outcome.stopped) == ("played", "card_not_in_hand")
    seqs = [int(s) for s in outcome.detail.split()]
    now = table.audit()["entries"]
    assert len(now) == entries + 2  # the two lines before stand; "End" was not tried
    assert [e["seq"] for e in now[-2:]] == seqs
    assert [e["envelope"]["payload"]["move"] for e in now[-2:]] == moves
    assert all(e["status"] == "applied" for e in now[-2:])
    summary = table.summary()
    assert summary["to_act"] == [seat] and summary["step"] == step + 2  # still the turn
    assert table.state()["actions"] == 2

    (answer,) = _answers(table.smtp, table.address(seat))
    assert answer["X-Parley-Answer"] == "card_not_in_hand"
    assert answer["References"].split()[0] == \
        f"<game-{table.gid}-{table.players[seat].id}@parley>"
    text = said(answer)
    made = "; ".join(
        f"line {i} ('{line}')" + ("" if line == engine.format_move(move)
                                  else f" as '{engine.format_move(move)}'")
        for i, (line, move) in enumerate(zip(before, moves, strict=True), 1))
    assert f"Your reply made 2 moves: {made}." in text
    quoted = " ".join(bad.split())
    assert f"Its line 3 ('{quoted}'): {why.value.message} Nothing after it was tried." in text
    assert "Nothing was changed" not in text
    legal = table.legal_now(seat)
    assert "Your legal moves:" in text
    if len(legal) <= 40:
        assert list(numbered(answer).values()) == legal  # the moves now, numbered again
    assert answer["Reply-To"] not in (None, mail["Reply-To"])  # not the spent address
    return answer


def _game_over_answer(table: MailTable, seat: int, lines: list[str]) -> None:
    """The line after the winning move was not tried, and the answer says why."""
    answer = _answers(table.smtp, table.address(seat))[-1]
    assert answer["X-Parley-Answer"] == "game_over" and answer["Reply-To"] is None
    text = said(answer)
    played = len(lines) - 1
    assert f"Your reply made {played} move{'s' if played != 1 else ''}: line 1 (" in text
    assert f"Its line {len(lines)} ('End'): The game has ended. Nothing after it was tried." \
        in text
    assert "Your legal moves:" not in text


# ---- Elfenland --------------------------------------------------------------------------------


def _paid_steps(state: dict[str, Any], seat: int) -> list[dict[str, Any]]:
    """The seat's travel steps paid with the cards the chart names (no caravans)."""
    return [m for m in travel.legal_steps(state, seat)
            if all("cards" in s for s in m["steps"])]


def _elfenland_choice(engine: Any, state: dict[str, Any], seat: int) -> dict[str, Any]:
    """Draft the counter the hand has most cards for; place a counter that opens a road the
    seat can pay for, else pass; travel to a town not yet visited while the cards allow, then
    end; anything else: the first listed move."""
    moves = list(engine.legal_moves(state, seat))
    kind = state["dec"]["kind"]
    if kind == "draft":
        hand = state["hand"][seat]
        takes = [m for m in moves if m["type"] == "take_counter"]
        return max(takes, key=lambda m: hand.get(m["counter"], 0)) if takes else moves[0]
    if kind == "plan":
        before = len(_paid_steps(state, seat))
        for move in moves:
            if move["type"] == "place_counter":
                after = copy.deepcopy(state)
                engine.apply(after, seat, move, SeededRng(0))
                if len(_paid_steps(after, seat)) > before:
                    return move
        return {"type": "pass"}
    if kind == "move":
        for move in _paid_steps(state, seat):
            after = copy.deepcopy(state)
            engine.apply(after, seat, move, SeededRng(0))
            if len(after["collected"][seat]) > len(state["collected"][seat]):
                return move
        return {"type": "end_move"}
    return moves[0]


def elfenland_moves(engine: Any, state: dict[str, Any],
                    seat: int) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The moves the seat makes in a row from here (planned on a copy, by the policy above)
    while it alone is asked and nothing is drawn at random; -> them and the position after."""
    state = copy.deepcopy(state)
    moves: list[dict[str, Any]] = []
    while engine.result(state) is None:
        to_act = engine.decision(state)["to_act"]
        if seat not in to_act or (moves and len(to_act) > 1):
            break
        move = _elfenland_choice(engine, state, seat)
        rng = SeededRng(0)
        engine.apply(state, seat, move, rng)
        moves.append(move)
        if rng.draws or len(to_act) > 1:  # what follows depends on the draw, or on others
            break
    return moves, state


@pytest.mark.slow
def test_elfenland_rounds_are_played_by_replies(nclient, work, smtp, inbox, napp) -> None:
    table = MailTable(nclient, work, smtp, inbox, napp.extensions["parley_store"], "elfenland",
                      ["Ann", "Bob"])
    table.start(ELFENLAND)
    engine = table.engine
    made: list[tuple[str, list[str]]] = []  # each reply: the decision it opened on, its moves
    rounds = set()
    for n in range(200):
        summary = table.summary()
        if summary["status"] == "finished":
            break
        seat = summary["to_act"][0]
        state = table.state()
        rounds.add(state["round"])
        moves, planned = elfenland_moves(engine, state, seat)
        mail = table.mail(seat)
        listed = numbered(mail)
        legal = table.legal_now(seat)
        if len(legal) <= 40:
            assert list(listed.values()) == legal
        else:  # too many to number: the notation, with examples
            assert not listed and "For example: '" in _text(mail)
        lines = lines_for(engine, moves, listed, n)
        outcome = table.send(seat, mail, lines)
        assert (outcome.kind, outcome.stopped) == ("played", None), (lines, outcome)
        assert len(outcome.detail.split()) == len(lines)
        made.append((state["dec"]["kind"], [m["type"] for m in moves]))
        now = table.state()
        assert now["boot"] == planned["boot"] and now["collected"] == planned["collected"]
    else:
        raise AssertionError("the game did not end")

    assert rounds == {1, 2, 3}
    assert {kind for kind, _ in made} >= {"draft", "plan", "move", "finish_round"}
    drafts = [types for kind, types in made if kind == "draft"]
    assert len(drafts) == 3 * 2 * 3  # three picks a seat a round, a reply each
    assert any("place_counter" in types for kind, types in made if kind == "plan")
    # one seat acting several times in a row, in one reply: travel steps, the end of the move
    assert any(len(types) >= 3 and "travel" in types and "end_move" in types
               for _, types in made), made
    result = table.summary()["result"]
    assert result["reason"] == "rounds_complete"
    scores = {int(s): n for s, n in result["scores"].items()}
    assert scores == {seat: len(table.state()["collected"][seat]) for seat in (0, 1)}
    assert sum(scores.values()) > 0  # the travels collected towns
    for seat in (0, 1):
        (ended,) = [m for m in smtp.to(table.address(seat))
                    if m["X-Parley-Event"] == "game.finished"]
        assert "After the last round" in said(ended)
        assert not _answers(smtp, table.address(seat))
    table.check_audit()


# ---- capitals through the mail ---------------------------------------------------------------

GAMES = {"stratego": ("stratego", {"army": "duel", **JOINED}),
         "cartagena": ("cartagena", JOINED), "elfenland": ("elfenland", JOINED),
         "elfenland-war": ("elfenland", {"mode": "war", **JOINED}),
         "stortebeker": ("stortebeker", JOINED), "totohu": ("totohu", JOINED)}


@pytest.mark.parametrize(("ruleset", "options"), GAMES.values(), ids=GAMES.keys())
def test_a_move_in_capitals_and_extra_spaces_is_played_by_mail(ruleset, options, nclient, work,
                                                              smtp, inbox, napp) -> None:
    store = napp.extensions["parley_store"]
    table = MailTable(nclient, work, smtp, inbox, store, ruleset, ["Ann", "Bob"])
    table.start(options)
    engine = table.engine
    before = table.summary()
    seat = before["to_act"][-1]
    mail = table.mail(seat)
    listed = numbered(mail)
    if listed:  # the last move the mail lists of more than one word
        move = [m for m in listed.values() if " " in m][-1]
    else:  # a free arrangement: the mail's example
        move = re.search(r"For example: '([^']+)'", _text(mail).replace("\n", " "))[1]
    shouted = "  " + "   ".join(move.upper().split()) + "  "
    assert shouted.strip() != move and "   " in shouted.strip()
    outcome = table.send(seat, mail, [shouted])
    assert (outcome.kind, outcome.detail, outcome.stopped) == ("played", "1", None), outcome
    assert not _answers(smtp, table.address(seat))
    # the entry (a secret move's envelope is not in a running game's audit)
    ((seq, fields),) = store.entries(table.gid, 1, 9)
    entry = json.loads(fields["env"])
    assert entry["key_id"] == "mail" and entry["payload"]["seat"] == seat
    assert entry["payload"]["move"] == engine.parse_move(move)
    assert engine.format_move(entry["payload"]["move"]) == move
    assert store.rejection(table.gid, seq) is None
    after = table.summary()
    assert seat not in after["to_act"] or after["step"] > before["step"]
    # a running game's audit names the entry as mail-authorised, unless the move is secret
    # (a setup, a Totohu choice): then its envelope joins the bundle at the end
    audit = table.audit()
    secret = engine.is_secret(entry["payload"]["move"])
    assert ("envelope" in audit["entries"][0]) is not secret
    report = verify_bundle(audit, partial=True)
    assert report.ok, report.failure
    assert report.mail_authorised == ([] if secret else [1])
