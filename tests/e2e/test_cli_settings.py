"""`parley settings` against a real server: it shows the player's settings as their own profile
echoes them (`GET /v1/players/{id}`), changes them, and points to `parley mail-moves` for moves
by mail, which take a signed consent."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import requests

from tests import confirming
from tests.e2e.test_cli import Cli
from tests.waiting import wait_until

pytestmark = pytest.mark.slow

def _row(text: str, name: str) -> str:
    """The value shown for one setting (its row's second column)."""
    line = next(line for line in text.splitlines() if line.strip().startswith(name))
    return re.split(r"\s{2,}", line.strip())[1]


def test_settings_are_shown_changed_and_echoed(server, tmp_path: Path) -> None:
    ann = Cli(tmp_path, "ann")
    ann.out("keygen")
    ann.out("register", "Ann", "--server", server.url)
    shown = ann.out("settings")
    assert shown.startswith("settings of Ann (p_")
    assert [_row(shown, n) for n in ("mail", "time zone", "reply receipts")] == \
        ["on", "UTC", "on"]
    assert _row(shown, "daily digest").startswith("off")
    assert _row(shown, "moves by mail") == "off (needs a confirmed address)"
    assert "`parley mail-moves on|off`" in shown  # changed there, with a signed consent

    changed = ann.out("settings", "--time-zone", "Europe/Prague", "--digest", "daily",
                      "--digest-hour", "7", "--receipts", "off", "--mail", "off")
    assert "(changed)" in changed.splitlines()[0]
    assert [_row(changed, n) for n in ("mail", "daily digest", "time zone", "reply receipts")] \
        == ["off", "daily at 07:00", "Europe/Prague", "off"]
    assert ann.out("settings") == changed.replace(" (changed)", "", 1)

    config = json.loads(ann.config.read_text())
    own = requests.get(f"{server.url}/v1/players/{config['player']}", timeout=10,
                       headers={"Authorization": f"Bearer {config['token']}"}).json()
    assert {k: own[k] for k in ("time_zone", "mail_digest", "digest_hour", "reply_receipts",
                                "mail_moves")} == {
        "time_zone": "Europe/Prague", "mail_digest": "daily", "digest_hour": 7,
        "reply_receipts": False, "mail_moves": False}
    assert own["mail"]["enabled"] is False
    public = requests.get(f"{server.url}/v1/players/{config['player']}", timeout=10).json()
    assert set(public) == {"id", "name", "keys"}  # the settings are the player's own


def test_moves_by_mail_are_shown_and_changed_by_mail_moves(server, tmp_path: Path) -> None:
    ann = Cli(tmp_path, "ann")
    ann.out("keygen")
    ann.out("register", "Ann", "--email", "ann@example.org", "--server", server.url)
    assert _row(ann.out("settings"), "address") == \
        "ann@example.org (not confirmed: no mail until it is)"
    outbox = Path(server.env["PARLEY_DATA"]) / "outbox"
    mail = wait_until(lambda: confirming.take_from_maildir(outbox, "ann@example.org"), 30,
                      "the confirmation mail")
    confirming.follow(server.http, confirming.link_of(mail))
    shown = ann.out("settings", "--time-zone", "Europe/Prague", "--digest", "daily",
                    "--digest-hour", "7")
    assert [_row(shown, n) for n in ("address", "moves by mail")] == ["ann@example.org", "on"]
    ann.out("mail-moves", "off")
    assert _row(ann.out("settings"), "moves by mail") == "off"


def test_a_setting_the_server_refuses_is_one_line(server, tmp_path: Path) -> None:
    ann = Cli(tmp_path, "ann")
    ann.out("keygen")
    ann.out("register", "Ann", "--server", server.url)
    refused = ann.run("settings", "--time-zone", "Mars/Olympus", ok=False)
    assert refused.returncode == 1
    assert refused.stderr == ("parley settings: the server knows no time zone 'Mars/Olympus': "
                              "an IANA name, such as Europe/Prague or UTC\n")
    bad_hour = ann.run("settings", "--digest-hour", "24", ok=False)
    assert bad_hour.returncode == 2 and "an hour from 0 to 23" in bad_hour.stderr
    assert _row(ann.out("settings"), "time zone") == "UTC"


def test_moves_by_mail_on_and_mail_off_per_kind_in_words() -> None:
    from service.client.settings_command import rows

    profile = {"email": "ann@example.org", "email_confirmed": True, "mail_moves": True,
               "mail_digest": "off", "digest_hour": 8, "time_zone": "UTC",
               "reply_receipts": True, "mail": {
                   "enabled": True, "types": {"turn.started": True, "deadline.reminder": False}}}
    assert dict(rows(profile)) == {
        "address": "ann@example.org", "mail": "on, except deadline.reminder",
        "daily digest": "off (at 08:00 when daily)", "time zone": "UTC", "moves by mail": "on",
        "reply receipts": "on"}
