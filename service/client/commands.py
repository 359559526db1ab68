"""The `parley` client commands: keys, account, games, signed moves, audits (docs/cli.md).

A player's terminal client over the public HTTP API, with nothing but the standard library's
urllib (no third-party HTTP dependency) and `cryptography` for the Ed25519 key. The private key
never leaves the machine: moves are signed here, and `parley verify` checks a bundle offline.
The config file, the key and the HTTP session are service.client.session's.
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from parley_protocol import signing
from parley_protocol.verify import ENDED, verify_bundle
from parley_protocol.verify_command import InputError, read_strict_json, verify_files
from parley_protocol.verify_command import add_arguments as add_verify_arguments

from engines.sentences import join
from service.client.clock_command import (
    add_clock_commands,
    add_clock_options,
    describe_control,
    games_suffix,
    seat_notes,
    time_control_of,
)
from service.client.journal import Journal, check_mine
from service.client.move_input import LastViews, MoveError, engine_for, label, read_move
from service.client.roster import Roster, seat_of
from service.client.session import (
    DEFAULT_SERVER,
    ApiError,
    ClientError,
    Http,
    Session,
    UsageError,
    compact,
    config_path,
    key_path,
    key_pem,
    load_config,
    out,
    profiles,
    write_json,
    write_private,
)
from service.notify.prose import result_sentence

#: how long `parley move` waits for its move to be applied or rejected, by default
DEFAULT_WAIT = 30.0
POLL_SECONDS = 0.2
LEGAL_MOVES_SHOWN = 60


def cmd_keygen(args: argparse.Namespace) -> int:
    """Create the player's Ed25519 key; with --force on a registered account, rotate it."""
    session = Session(args)
    path = key_path(session.config, session.path, args.key)
    if path.exists() and not args.force:
        raise ClientError(f"{path} exists; pass --force to replace it")
    key = Ed25519PrivateKey.generate()
    public = signing.public_key_b64(key)
    if path.exists() and session.config.get("key_id") and session.config.get("token"):
        player = session.require_player()
        proof = signing.sign_key_claim(key, signing.key_claim(public, player=player))
        added = session.http.post(f"/v1/players/{player}/keys",
                                  {"public_key": public, "proof": proof})
        session.config["key_id"] = added["key_id"]
        out(f"registered the new key as {added['key_id']} (old keys stay valid for old moves)")
    write_private(path, key_pem(key))
    session.config["key_path"] = str(path)
    session.save()
    out(f"wrote {path} (mode 0600)")
    out(f"public key: {public}")
    return 0


def _new_identity(session: Session) -> tuple[Ed25519PrivateKey, str]:
    """The key of a config that holds no player yet, and its public half."""
    if session.config.get("player"):
        raise ClientError(f"{session.path} already holds player {session.config['player']}; "
                          f"use another --config for another player")
    key = session.key()
    return key, signing.public_key_b64(key)


def _keep_identity(session: Session, pid: str, name: str, issued: dict[str, Any]) -> None:
    """Save the player, the key's id and the token the server issued in the config."""
    session.config.update({"server": session.server, "player": pid, "name": name,
                           "key_id": issued["key_id"], "token": issued["token"],
                           "key_path": str(key_path(session.config, session.path))})
    session.save()


def cmd_register(args: argparse.Namespace) -> int:
    """Register a player with the key's public half; keeps id, key id and token."""
    session = Session(args)
    key, public = _new_identity(session)
    body: dict[str, Any] = {"name": args.name, "public_key": public,
                            "proof": signing.sign_key_claim(key, signing.key_claim(
                                public, name=args.name))}
    if args.email:
        body["email"] = args.email
    created = session.http.post("/v1/players", body, auth=False)
    _keep_identity(session, created["id"], args.name, created)
    out(f"registered {args.name} as {created['id']} (key {created['key_id']}) "
         f"on {session.server}")
    out(f"saved the token in {session.path} (mode 0600)")
    if args.email:
        session.http.token = created["token"]
        _consent(session, created["id"], created["key_id"], key, True)
        out("moves by mail allowed: a statement signed with your key is in the record "
             "(`parley mail-moves off` withdraws it)")
    if created.get("email") and not created.get("email_confirmed"):
        out(f"{created['email']} gets no game mail until you confirm it: "
             + ("follow the link in the mail just sent to it" if created.get("confirmation_sent")
                else f"ask for a confirmation mail later (POST /v1/players/{created['id']}"
                     "/email/confirmation)"))
    return 0


def _consent(session: Session, pid: str, key_id: str, key: Ed25519PrivateKey,
             allowed: bool) -> None:
    """Sign and give a statement allowing (or stopping) moves made from mail replies."""
    statement = signing.consent_statement(pid, allowed, signing.issued_now())
    session.http.post(f"/v1/players/{pid}/consents", {
        "statement": statement, "key_id": key_id,
        "signature": signing.sign_consent(key, statement)})


def cmd_mail_moves(args: argparse.Namespace) -> int:
    """Allow or stop moves by mail reply, with a statement signed by your key."""
    session = Session(args)
    pid = session.require_player()
    allowed = args.state == "on"
    _consent(session, pid, session.config["key_id"], session.key(), allowed)
    if allowed:
        session.http.call("PATCH", f"/v1/players/{pid}", {"mail_moves": True}, True)
    out(f"moves by mail {'allowed' if allowed else 'stopped'}: your signed statement is in "
         "the audit of each of your games")
    return 0


def cmd_claim(args: argparse.Namespace) -> int:
    """Add this key to a player who has played by mail only, with the code mailed to them."""
    session = Session(args)
    key, public = _new_identity(session)
    pid = session.http.get(f"/v1/key-claims/{args.code}", auth=False)["player"]
    proof = signing.sign_key_claim(key, signing.key_claim(public, player=pid))
    created = session.http.post(f"/v1/key-claims/{args.code}",
                                {"public_key": public, "proof": proof}, auth=False)
    name = session.http.get(f"/v1/players/{pid}", auth=False).get("name", pid)
    _keep_identity(session, pid, name, created)
    out(f"added key {created['key_id']} to {name} ({pid}) on {session.server}: your new "
         "seats are signed with it; the token is saved in " + str(session.path))
    # replies went on making moves while the player had no key; with one, that takes the
    # player's signed consent (docs/audit.md §16), given here as `register --email` gives it
    session.http.token = created["token"]
    _consent(session, pid, created["key_id"], key, True)
    out("moves by mail stay allowed: a statement signed with your key is in the record "
        "(`parley mail-moves off` withdraws it)")
    return 0


def cmd_games(args: argparse.Namespace) -> int:
    """List the caller's games, marking those where it is their turn; players by name."""
    session = Session(args)
    me = session.require_player()
    roster = Roster(session.http)
    games: list[dict[str, Any]] = []
    after = 0
    while True:
        page = session.http.get(f"/v1/games?after={after}")
        games += page["games"]
        if page.get("next") is None:
            break
        after = page["next"]
    if not games:
        out("no games yet: `parley new RULESET` creates one, `parley join GAME` joins one")
        return 0
    out(f"{'GAME':<16} {'RULESET':<11} {'STATUS':<9} {'STEP':>4}  {'TO ACT':<16} WITH")
    now = datetime.now().astimezone()
    for g in games:
        seat = seat_of(g, me)
        name = roster.namer(g, seat)
        to_act = join(name(s) for s in g["to_act"]) if g["status"] == "active" else "-"
        others = [roster.name(p["player"]) for p in g["players"]
                  if p.get("player") and p["player"] != me]
        turn = " <- your turn" if seat is not None and seat in g["to_act"] \
            and g["status"] == "active" else ""
        out(f"{g['id']:<16} {g['ruleset']:<11} {g['status']:<9} {g['step']:>4}  {to_act:<16} "
             f"{join(others) or '-'}{turn}{games_suffix(g, name, now)}")
    return 0


def cmd_profiles(args: argparse.Namespace) -> int:
    """The named identities in the config folder, with their player and server."""
    found = profiles()
    if not found:
        out("no profiles yet: `parley keygen --profile NAME` then `parley register NAME "
             "--profile NAME` creates one")
        return 0
    for name, config in found:
        who = config.get("name") or "-"
        out(f"{name:<16} {who:<16} {config.get('player') or 'not registered':<18} "
             f"{config.get('server') or ''}")
    return 0


def getting_started() -> str:
    """What `parley` alone prints: the first steps, or where the user stands."""
    path = config_path(None)
    config = load_config(path) if path.exists() else {}
    if config.get("player"):
        return (f"parley: you are {config.get('name')} ({config['player']}) on "
                f"{config.get('server')}.\n`parley games` lists your games, `parley view GAME` "
                "shows one, `parley --help` lists every command.")
    return (
        "parley: no player configured yet. To start playing:\n"
        "  parley keygen                          # your key, kept on this machine\n"
        f"  parley register NAME --server URL      # (default server {DEFAULT_SERVER})\n"
        "  parley new stratego --option army=duel --join\n"
        "  parley view GAME                       # the board and your numbered legal moves\n"
        "  parley move GAME 3                     # play move number 3 (or e4-e5, or JSON)\n"
        "Several identities on one machine: add --profile NAME to every command.\n"
        "To run a server instead: `parley run` (see README.md). `parley --help` lists all.")


def parse_option(text: str) -> tuple[str, Any]:
    """`k=v`: the value is JSON when it parses as JSON (`3`, `true`), else a string."""
    name, sep, raw = text.partition("=")
    if not sep or not name:
        raise ClientError(f"--option {text!r}: expected NAME=VALUE")
    try:
        return name, json.loads(raw)
    except ValueError:
        return name, raw


def cmd_new(args: argparse.Namespace) -> int:
    """Create a game (nobody seated, the creator neither); --join takes a seat at once."""
    time_control = time_control_of(args)  # a usage error before any request
    session = Session(args)
    session.require_player()
    seats = args.players
    if seats is None:
        rulesets = {r["id"]: r for r in session.http.get("/v1/rulesets", auth=False)}
        if args.ruleset not in rulesets:
            raise ClientError(f"unknown ruleset {args.ruleset!r}; the server has "
                              f"{', '.join(sorted(rulesets))}")
        seats = rulesets[args.ruleset]["min_players"]
    options = dict(parse_option(o) for o in args.option)
    body: dict[str, Any] = {"ruleset": args.ruleset, "players": seats, "options": options}
    if time_control is not None:
        body["time_control"] = time_control
    game = session.http.post("/v1/games", body)
    shown = {k: v for k, v in game["options"].items() if k != "time_control"}
    out(f"created {game['id']}: {game['ruleset']} for {game['seats']} seats, "
         f"options {compact(shown)}")
    if game["options"].get("time_control"):
        out(f"clock: {describe_control(game['options']['time_control'])}")
    out(f"dice commitment: {game['commitment']}")
    if args.join:
        return _join(session, game["id"], None)
    out(f"every player, you too, joins with `parley join {game['id']}`")
    return 0


def cmd_join(args: argparse.Namespace) -> int:
    session = Session(args)
    session.require_player()
    return _join(session, args.game, args.seat)


def _join(session: Session, game: str, seat: int | None) -> int:
    """Take a seat with a fresh random client seed, mixed into the game's dice, in a join
    signed by the player's key (docs/audit.md §18); the journal keeps it for `verify --me`."""
    journal = Journal(session.path, game)
    client_seed = signing.b64url_encode(secrets.token_bytes(16))
    statement = signing.join_statement(game, session.config["player"], client_seed,
                                       signing.issued_now())
    signed = {"statement": statement, "key_id": session.config["key_id"],
              "signature": signing.sign_join(session.key(), statement)}
    body: dict[str, Any] = dict(signed)
    if seat is not None:
        body["seat"] = seat
    joined = session.http.post(f"/v1/games/{game}/join", body)
    journal.joined(signed)
    final = joined.get("seat_final", True)
    where = _place(joined["seat"]) if final else "a seat (drawn when the game starts)"
    out(f"joined {game}: {where}, game {joined['status']} (client seed {client_seed})")
    if joined["status"] == "active":
        out(f"every seat is taken and the game has started: you are "
             f"{_place(joined['seat'])}; `parley view {game}` shows the board")
    return 0


def cmd_invite(args: argparse.Namespace) -> int:
    """Invite an address by mail to an open game you hold a seat in."""
    session = Session(args)
    session.require_player()
    sent = session.http.post(f"/v1/games/{args.game}/invitations", {"email": args.email})
    days = sent["expires_in"] // 86400
    out(f"invitation to {args.game} mailed to {sent['email']}: replying 'join' or following "
         f"its link takes a seat (for {days} days); no key needed, they play by mail")
    return 0


def _place(seat: int) -> str:
    """A seat as a player reads it: "player 1 (first to move)", "player 2"."""
    return f"player {seat + 1}" + (" (first to move)" if seat == 0 else "")


def cmd_view(args: argparse.Namespace) -> int:
    """Show the caller's view: the board drawn with the players' names, whose turn, the
    result in words, and the legal moves."""
    session = Session(args)
    view = session.http.get(f"/v1/games/{args.game}/view")
    if args.json:
        write_json(view, None)
        return 0
    roster = Roster(session.http)
    summary = roster.game(args.game)
    engine = engine_for(summary["ruleset"])
    names, name = roster.names(summary), roster.namer(summary, view["seat"])
    text = view.get("text")
    if engine is not None and view.get("state") is not None:
        text = engine.render_text(view["state"], names)
    if text:
        out(text.rstrip("\n"))
        out()
    to_act = join(name(s) for s in view["to_act"]) or "nobody"
    out(f"game {view['game']}  status {view['status']}  step {view['step']}"
         f"  ({view.get('step_kind') or '-'})  to act: {to_act}")
    if view.get("result"):
        out(f"result: {result_sentence(view['result'], name, int(summary['seats']), engine)}")
    clocks = seat_notes(summary, name, datetime.now().astimezone(), full=True) \
        if summary.get("status") == "active" else []
    if clocks:
        out(f"clocks: {'; '.join(clocks)}")
    if view["seat"] is None:
        out("you watch as a spectator (you hold no seat)")
        return 0
    if view["status"] == "active":
        mine = view["seat"] in view["to_act"]
        out("your turn" if mine else f"waiting for {to_act}")
    LastViews(session.path).remember(view)
    _print_legal(view, summary["ruleset"])
    return 0


def _ruleset(session: Session, game: str) -> str:
    ruleset: str = session.http.get(f"/v1/games/{game}", auth=False)["ruleset"]
    return ruleset


def _print_legal(view: dict[str, Any], ruleset: str) -> None:
    """The legal moves numbered as `parley move GAME N` takes them, in the game's notation."""
    moves = view.get("legal_moves") or []
    if not moves:
        return
    engine = engine_for(ruleset)
    complete = view.get("legal_moves_complete", True)
    out("legal moves:" if complete else "examples of legal moves (any valid arrangement "
                                         "is allowed):")
    for i, move in enumerate(moves[:LEGAL_MOVES_SHOWN]):
        out(f"  {i:>3}  {label(engine, move)}")
    if len(moves) > LEGAL_MOVES_SHOWN:
        out(f"  ... {len(moves) - LEGAL_MOVES_SHOWN} more (`parley view --json` lists all)")
    how = "a number above, the move in the game's notation" if engine else "a number above"
    out(f"play one with: parley move {view['game']} <{how}, or JSON>  (resign: 'resign')")


def sign_envelope(key: Ed25519PrivateKey, key_id: str, game: str, seat: int, step: int,
                  move: dict[str, Any], repeat: int = 0) -> dict[str, Any]:
    """The signed envelope of docs/audit.md §6: the move's derived nonce (the key's signature
    of the game, seat, step and move, so that signing it again rolls the same; `repeat`: the
    very same move made once more at this step), UTC time."""
    payload = {"game": game, "seat": seat, "step": step, "move": move, "nonce": "",
               "issued_at": signing.issued_now()}
    payload["nonce"] = signing.derive_nonce(key, payload, repeat)
    return {"payload": payload, "key_id": key_id,
            "signature": signing.sign_payload(key, payload)}


def _times_made(session: Session, game: str, seat: int, step: int, move: dict[str, Any]
                ) -> int:
    """How often the game's log holds this very move by this seat at this step: the number
    of its next repeat (docs/audit.md §6)."""
    bundle = session.http.get(f"/v1/games/{game}/audit", auth=False)
    same = signing.canonical([seat, step, move])
    payloads = (e["envelope"]["payload"] for e in bundle["entries"] if "envelope" in e)
    return sum(signing.canonical([p["seat"], p["step"], p["move"]]) == same for p in payloads)


def cmd_move(args: argparse.Namespace) -> int:
    """Sign a move with the player's key, submit it, and wait until it is resolved."""
    session = Session(args)
    session.require_player()
    view = session.http.get(f"/v1/games/{args.game}/view")
    try:
        move = read_move(args.move, args.game, view, lambda: _ruleset(session, args.game),
                         LastViews(session.path))
    except MoveError as err:
        raise ClientError(str(err)) from err
    if view["seat"] is None and args.seat is None:
        raise ClientError(f"you hold no seat in {args.game}")
    seat = view["seat"] if args.seat is None else args.seat
    step = view["step"] if args.step is None else args.step
    repeat = _times_made(session, args.game, seat, step, move) if args.again else 0
    env = sign_envelope(session.key(), session.config["key_id"], args.game, seat, step, move,
                        repeat)
    try:  # a dropped connection or a 5xx: the same envelope again, never a newly signed one
        accepted = session.http.post_move(f"/v1/games/{args.game}/moves", env)
    except ApiError as err:
        out(f"refused: {err.code} ({err.status}): {err.detail}")
        if err.code == "duplicate_nonce":
            out("this very move was signed at this step before and the game holds it; to make "
                "it once more at this step (a second unit of one kind), add --again")
        return 1
    Journal(session.path, args.game).posted(env)  # for `parley verify --me`
    saved = _save_receipt(session, args.game, accepted["receipt"])
    out(f"accepted as move {accepted['id']} of {args.game} at step {step}; "
         f"receipt saved in {saved}")
    status = accepted
    if args.wait > 0 and status["status"] == "queued":
        status = _wait(session.http, accepted["location"], args.wait)
    return _report_status(status)


def _save_receipt(session: Session, game: str, receipt: dict[str, Any]) -> Path:
    """Keep the server-signed receipt: `parley verify --receipt` checks it against the log."""
    path = session.path.parent / "receipts" / game / f"{receipt['seq']}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(receipt, indent=2) + "\n", encoding="utf-8")
    return path


def _wait(http: Http, location: str, seconds: float) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    while True:
        status = http.get(http.resolve(location), auth=False)
        if status["status"] != "queued" or time.monotonic() >= deadline:
            return status
        time.sleep(POLL_SECONDS)


def _report_status(status: dict[str, Any]) -> int:
    if status["status"] == "rejected":
        out(f"rejected: {status.get('code')}: {status.get('detail')}")
        return 1
    if status["status"] == "queued":
        out("still queued: `parley view` shows when it has been applied")
        return 0
    out("applied")
    return 0


def cmd_audit(args: argparse.Namespace) -> int:
    """Download the audit bundle (the seed and every envelope appear once the game ends)."""
    session = Session(args)
    bundle = session.http.get(f"/v1/games/{args.game}/audit", auth=False)
    write_json(bundle, args.output)
    if args.output and args.output != "-":
        out(f"wrote the audit bundle of {args.game} ({bundle['status']}, "
             f"{len(bundle['entries'])} entries) to {args.output}")
        if bundle["status"] != "finished":
            out("the game has not finished: `parley verify --partial` checks what can be "
                 "checked before the server seed is revealed")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    """Download a finished game's record: the audit bundle plus every event."""
    session = Session(args)
    record = session.http.get(f"/v1/games/{args.game}/record", auth=False)
    write_json(record, args.output)
    if args.output and args.output != "-":
        out(f"wrote the record of {args.game} ({len(record['audit']['entries'])} entries, "
             f"{len(record['events'])} events) to {args.output}")
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    """Check a bundle or record offline; exit 0 only if every check passes (the check of
    `parley-verify`, from the protocol package). With --me, fetch game BUNDLE's bundle and
    check also what this client sent: its signed join and every envelope it posted."""
    if args.me:
        return _verify_mine(args)
    try:
        report = verify_files(args.bundle, args.receipt, args.server_key, args.partial)
    except InputError as err:
        raise ClientError(str(err)) from err
    out(report.render())
    return 0 if report.ok else 1


def _verify_mine(args: argparse.Namespace) -> int:
    """`parley verify GAME --me`: the bundle's checks (in part while the game runs), then the
    player's own: what this client's journal kept is in the bundle."""
    session = Session(args)
    player = session.require_player()
    kept = Journal(session.path, args.bundle).read()
    bundle = session.http.get(f"/v1/games/{args.bundle}/audit", auth=False)
    running = bundle.get("status") not in ENDED
    try:
        receipts = [read_strict_json(path) for path in args.receipt]
    except InputError as err:
        raise ClientError(str(err)) from err
    report = verify_bundle(bundle, server_key=args.server_key, receipts=receipts,
                           partial=args.partial or running)
    out(report.render())
    mine = check_mine(bundle, player, kept)
    out(f"Your part of {args.bundle} (player {player}, as this client kept it)")
    for passed, line in mine:
        out(f"  {'ok  ' if passed else 'FAIL'}  {line}")
    good = report.ok and all(passed for passed, _ in mine)
    out("YOUR JOIN AND MOVES ARE IN THE BUNDLE" if good else "NOT VERIFIED")
    return 0 if good else 1


# ---- argparse ------------------------------------------------------------------------------


def _handler(func: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """Run a command; a ClientError is one line on stderr and exit status 1, not a traceback."""

    def run(args: argparse.Namespace) -> int:
        try:
            return func(args)
        except ClientError as err:
            sys.stderr.write(f"parley {args.command}: {err}\n")
            return 2 if isinstance(err, UsageError) else 1

    return run


def add_commands(sub: Any) -> None:
    """Register the client subcommands on the `parley` parser's subparsers."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--config", help="config file (default: $PARLEY_CONFIG or "
                                         "~/.config/parley/config.json)")
    common.add_argument("--profile", help="a named identity: its own config, key and token "
                                          "(default: $PARLEY_PROFILE, else the default config)")
    common.add_argument("--server", help="server URL (default: $PARLEY_SERVER, the config's, "
                                         f"or {DEFAULT_SERVER})")

    def add(name: str, func: Callable[[argparse.Namespace], int], text: str
            ) -> argparse.ArgumentParser:
        parser = sub.add_parser(name, parents=[common], help=text, description=text)
        parser.set_defaults(handler=_handler(func))
        return parser

    p = add("keygen", cmd_keygen, "create your Ed25519 key file (mode 0600)")
    p.add_argument("--key", help="key file (default: key.pem beside the config file)")
    p.add_argument("--force", action="store_true",
                   help="replace an existing key (a registered player's new key is added)")
    p = add("register", cmd_register, "register a player with your public key")
    p.add_argument("name")
    p.add_argument("--email")
    p = add("mail-moves", cmd_mail_moves, "allow or stop moves by mail reply (signed by you)")
    p.add_argument("state", choices=["on", "off"])
    p = add("claim", cmd_claim, "add your key to a player who has played by mail only")
    p.add_argument("code", help="the code of the mail from POST /v1/key-claims")
    add("games", cmd_games, "list your games")
    add("profiles", cmd_profiles, "list the named profiles (identities) on this machine")
    p = add("new", cmd_new, "create a game")
    p.add_argument("ruleset")
    p.add_argument("--players", type=int, help="seats (default: the ruleset's minimum)")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                   help="a game option; VALUE is JSON or a plain string (repeatable)")
    p.add_argument("--join", action="store_true", help="take a seat at once")
    add_clock_options(p)
    p = add("join", cmd_join, "take a seat in a game (with a random client seed)")
    p.add_argument("game")
    p.add_argument("--seat", type=int, help="a seat number (default: the first free one)")
    p = add("invite", cmd_invite, "invite an address by mail to an open game (no key needed)")
    p.add_argument("game")
    p.add_argument("email")
    p = add("view", cmd_view, "show your view of a game and your legal moves")
    p.add_argument("game")
    p.add_argument("--json", action="store_true", help="print the raw view JSON")
    p = add("move", cmd_move, "sign and submit a move, then wait for its outcome")
    p.add_argument("game")
    p.add_argument("move", help="a number from your last `parley view`, the move in the "
                                "game's notation (e4-e5), JSON, @FILE, or - for stdin")
    p.add_argument("--seat", type=int, help="default: your seat from the view")
    p.add_argument("--step", type=int, help="default: the current step from the view")
    p.add_argument("--again", action="store_true",
                   help="make the very same move once more at this step (its nonce names the "
                        "repeat, counted in the game's log)")
    p.add_argument("--wait", type=float, default=DEFAULT_WAIT,
                   help=f"seconds to wait for the outcome, 0: don't (default {DEFAULT_WAIT:g})")
    p = add("audit", cmd_audit, "download a game's audit bundle")
    p.add_argument("game")
    p.add_argument("-o", "--output", help="file to write (default: stdout)")
    p = add("export", cmd_export, "download a finished game's record (bundle + events)")
    p.add_argument("game")
    p.add_argument("-o", "--output", help="file to write (default: stdout)")
    p = add("verify", cmd_verify, "check an audit bundle or record offline")
    add_verify_arguments(p)
    p.add_argument("--me", action="store_true",
                   help="BUNDLE is a game id: fetch its bundle, verify it, and check that it "
                        "holds your signed join with the seed this client sent and every move "
                        "this client posted")
    from service.client.settings_command import add_settings  # they build on this module
    from service.client.watch import add_watch

    add_watch(add)
    add_settings(add)
    add_clock_commands(add)
