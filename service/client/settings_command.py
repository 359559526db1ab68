"""`parley settings`: what the server does for the player by mail, shown and changed in one place.

The settings live on the server (the mails are written there), so the command reads them from
the player's own profile (`GET /v1/players/{id}`, which echoes them to the player themself) and
changes them through the API: `PATCH /v1/players/{id}` for the time zone, the digest and the
reply receipts, `PUT /v1/players/{id}/mail` for mail as a whole. Moves by mail are shown but not
changed here: allowing them takes a statement signed with the player's key, which
`parley mail-moves on|off` makes (docs/audit.md §16).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from service.client.session import ApiError, ClientError, Session, out

Adder = Callable[[str, Callable[[argparse.Namespace], int], str], argparse.ArgumentParser]
ON_OFF = ("on", "off")


def _hour(text: str) -> int:
    """An hour of the day, 0-23, as argparse checks an option."""
    if not text.isdigit() or not 0 <= int(text) <= 23:
        raise argparse.ArgumentTypeError(f"an hour from 0 to 23, not {text!r}")
    return int(text)


def changes(args: argparse.Namespace) -> tuple[dict[str, Any], bool | None]:
    """The options given, as the PATCH body of the player's settings and the all-games mail
    switch (None: not given)."""
    patch: dict[str, Any] = {}
    if args.time_zone is not None:
        patch["time_zone"] = args.time_zone
    if args.digest is not None:
        patch["mail_digest"] = args.digest
    if args.digest_hour is not None:
        patch["digest_hour"] = args.digest_hour
    if args.receipts is not None:
        patch["reply_receipts"] = args.receipts == "on"
    return patch, None if args.mail is None else args.mail == "on"


def rows(profile: dict[str, Any]) -> list[tuple[str, str]]:
    """(setting, value) for each setting of the player's own profile, in words."""
    prefs = profile.get("mail") or {"enabled": True, "types": {}}
    off_kinds = sorted(kind for kind, on in prefs["types"].items() if not on)
    mail = "off" if not prefs["enabled"] else \
        "on" + (f", except {', '.join(off_kinds)}" if off_kinds else "")
    address = profile.get("email") or "none"
    if profile.get("email") and not profile.get("email_confirmed"):
        address += " (not confirmed: no mail until it is)"
    hour = f"{profile['digest_hour']:02d}:00"
    digest = f"daily at {hour}" if profile["mail_digest"] == "daily" \
        else f"off (at {hour} when daily)"
    moves = "on" if profile["mail_moves"] else "off"
    if not profile.get("email_confirmed"):
        moves += " (needs a confirmed address)"
    return [("address", address), ("mail", mail), ("daily digest", digest),
            ("time zone", profile["time_zone"]), ("moves by mail", moves),
            ("reply receipts", "on" if profile["reply_receipts"] else "off")]


#: the last lines of the command's answer: how each setting is changed
HOW = ("to change: --mail on|off, --digest daily|off, --digest-hour 0-23, --time-zone NAME,\n"
       "--receipts on|off; moves by mail: `parley mail-moves on|off` (signed with your key)")


def cmd_settings(args: argparse.Namespace) -> int:
    """Change the settings the options name, then show them all as the server now has them."""
    session = Session(args)
    pid = session.require_player()
    patch, mail = changes(args)
    if patch:
        try:
            session.http.call("PATCH", f"/v1/players/{pid}", patch, True)
        except ApiError as err:  # argparse checked the rest: a 422 is about the zone's name
            if err.status != 422 or args.time_zone is None:
                raise
            raise ClientError(f"the server knows no time zone {args.time_zone!r}: an IANA "
                              "name, such as Europe/Prague or UTC") from None
    if mail is not None:
        session.http.call("PUT", f"/v1/players/{pid}/mail", {"enabled": mail}, True)
    profile = session.http.get(f"/v1/players/{pid}")
    out(f"settings of {profile['name']} ({pid}) on {session.server}"
         + (" (changed)" if patch or mail is not None else ""))
    for name, value in rows(profile):
        out(f"  {name:<15} {value}")
    out(HOW)
    return 0


def add_settings(add: Adder) -> None:
    """Register `parley settings` with the client's other commands (service.client.commands)."""
    p = add("settings", cmd_settings, "show or change your settings: mail, the daily digest, "
                                      "time zone, reply receipts")
    p.add_argument("--mail", choices=ON_OFF, help="mail for all your games")
    p.add_argument("--digest", choices=("daily", "off"),
                   help="daily: one mail a day listing the games that wait for you")
    p.add_argument("--digest-hour", type=_hour, metavar="0-23",
                   help="the hour of the daily digest, in your time zone")
    p.add_argument("--time-zone", metavar="NAME",
                   help="an IANA time zone (Europe/Prague): mails show deadlines in it")
    p.add_argument("--receipts", choices=ON_OFF,
                   help="a short mail after a reply's moves were played")
