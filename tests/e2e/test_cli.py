"""The `parley` client used as a player would: two configs, a real server, a whole game.

Every command runs as a subprocess (`python -m service.cli`), against real web and worker
processes; the finished game's bundle and record then verify offline, and a tampered one not.
"""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow


class Cli:
    """One player's terminal: its own config file (and so its own key and token)."""

    #: the `parley` command, run as a subprocess
    command = (sys.executable, "-m", "service.cli")

    def __init__(self, home: Path, name: str) -> None:
        self.config = home / name / "config.json"
        self.env = {**os.environ, "HOME": str(home), "PARLEY_CONFIG": str(self.config)}
        self.env.pop("PARLEY_SERVER", None)

    def run(self, *args: str, ok: bool = True) -> subprocess.CompletedProcess:
        proc = subprocess.run([*self.command, *args], env=self.env,
                              capture_output=True, text=True, timeout=120)
        if ok:
            assert proc.returncode == 0, (args, proc.stdout, proc.stderr)
        return proc

    def out(self, *args: str) -> str:
        return self.run(*args).stdout

    def view(self, game: str) -> dict[str, Any]:
        return json.loads(self.out("view", game, "--json"))


def new_duel(server: Any, home: Path) -> tuple[str, Cli, Cli]:
    """Ann and Bob registered by those names, and a new Stratego Duel Ann created that nobody
    has joined yet (seats in the order of joining: who joins first moves first)."""
    ann, bob = Cli(home, "ann"), Cli(home, "bob")
    for cli, name in ((ann, "Ann"), (bob, "Bob")):
        cli.out("keygen")
        cli.out("register", name, "--server", server.url)
    created = ann.out("new", "stratego", "--option", "army=duel", "--option",
                      "seat_order=joined")
    return re.search(r"created (g_\w+)", created).group(1), ann, bob


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_game_from_the_command_line(server, tmp_path: Path) -> None:
    ann, bob = Cli(tmp_path, "ann"), Cli(tmp_path, "bob")
    for cli, name in ((ann, "ann"), (bob, "bob")):
        assert "public key:" in cli.out("keygen")
        key = cli.config.parent / "key.pem"
        assert _mode(key) == 0o600
        assert "--force" in cli.run("keygen", ok=False).stderr  # never overwritten silently
        registered = cli.out("register", name, "--email", f"{name}@example.org", "--server",
                             server.url)
        assert f"{name}@example.org gets no game mail until you confirm it" in registered
        assert _mode(cli.config) == 0o600
        config = json.loads(cli.config.read_text())
        assert config["server"] == server.url and config["token"].startswith("pt_")

    created = ann.out("new", "stratego", "--players", "2", "--option", "army=duel")
    game = re.search(r"created (g_\w+)", created).group(1)
    assert "commitment" in created
    assert "seat" in ann.out("join", game)
    assert "has started" in bob.out("join", game)
    seats = {cli.view(game)["seat"]: cli for cli in (ann, bob)}
    assert sorted(seats) == [0, 1]
    red, blue = seats[0], seats[1]
    assert game in ann.out("games")

    for cli in (red, blue):  # the secret setups: the view offers valid examples
        setup = cli.view(game)["legal_moves"][0]
        assert "applied" in cli.out("move", game, json.dumps(setup))
    text = red.out("view", game)
    assert "your turn" in text and "legal moves:" in text

    refused = red.run("move", game, '{"type": "move", "from": "a1", "to": "z9"}', ok=False)
    assert refused.returncode != 0 and "refused:" in refused.stdout
    stale = red.run("move", game, json.dumps(red.view(game)["legal_moves"][0]), "--step", "0",
                    ok=False)
    assert stale.returncode != 0 and "stale_step" in stale.stdout
    listing = red.out("view", game)
    first = red.view(game)["legal_moves"][0]
    assert f"    0  {first['from']}-{first['to']}" in listing  # numbered, in notation
    assert "applied" in red.out("move", game, "0")  # number 0 of the list just shown
    blue_move = blue.view(game)["legal_moves"][-1]
    assert "applied" in blue.out("move", game, f"{blue_move['from']}-{blue_move['to']}")
    stale_number = red.run("move", game, "0", ok=False)  # the list shown is two plies old
    assert stale_number.returncode != 0 and "moved on" in stale_number.stderr
    bad = red.run("move", game, "e4e5", ok=False)
    assert bad.returncode != 0 and "notation" in bad.stderr
    early = blue.run("export", game, "-o", str(tmp_path / "early.json"), ok=False)
    assert early.returncode != 0 and "game_not_finished" in early.stderr

    assert "applied" in blue.out("move", game, '{"type": "resign"}')
    assert "finished" in red.out("games")
    assert "result" in red.out("view", game)

    bundle, record = tmp_path / "bundle.json", tmp_path / "record.json"
    assert "wrote the audit bundle" in red.out("audit", game, "-o", str(bundle))
    assert "wrote the record" in blue.out("export", game, "-o", str(record))
    server_key = server.get("/v1/server-key").json()["public_key"]
    receipts = sorted((red.config.parent / "receipts" / game).glob("*.json"))
    assert receipts
    for path in (bundle, record):
        # `=`: a base64url key may start with "-", which argparse would take for an option
        report = red.out("verify", str(path), f"--server-key={server_key}",
                         *[a for r in receipts for a in ("--receipt", str(r))])
        assert report.rstrip().endswith("VERIFIED") and "FAIL" not in report

    data = json.loads(bundle.read_text())
    data["result"]["winners"] = [1]
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(data))
    failed = red.run("verify", str(tampered), ok=False)
    assert failed.returncode != 0
    assert "FAIL  result: the bundle says" in failed.stdout
    tampered.write_text(bundle.read_text().replace('"status": "applied"', '"status": "rejected"',
                                                   1))
    assert red.run("verify", str(tampered), ok=False).returncode != 0
    assert red.run("verify", str(tmp_path / "missing.json"), ok=False).returncode != 0
    tampered.write_text('{"format": "parley-audit-v1", "format": "parley-record-v1"}')
    assert "appears twice" in red.run("verify", str(tampered), ok=False).stderr

    old_key = json.loads(red.config.read_text())["key_id"]  # rotation keeps old moves valid
    assert "registered the new key" in red.out("keygen", "--force")
    assert json.loads(red.config.read_text())["key_id"] != old_key
    red.out("audit", game, "-o", str(bundle))
    assert red.out("verify", str(bundle)).rstrip().endswith("VERIFIED")


def test_profiles_and_the_first_words(server, tmp_path: Path) -> None:
    env = {**os.environ, "HOME": str(tmp_path)}
    for name in ("PARLEY_CONFIG", "PARLEY_PROFILE", "PARLEY_SERVER", "XDG_CONFIG_HOME"):
        env.pop(name, None)

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "service.cli", *args], env=env,
                              capture_output=True, text=True, timeout=120)

    hello = run()
    assert hello.returncode == 0 and "parley keygen" in hello.stdout
    for name in ("ann", "bob"):
        assert run("keygen", "--profile", name).returncode == 0
        assert run("register", name, "--profile", name, "--server", server.url).returncode == 0
    listed = run("profiles").stdout
    assert re.search(r"ann\s+ann\s+p_", listed) and re.search(r"bob\s+bob\s+p_", listed)
    folder = tmp_path / ".config" / "parley" / "profiles"
    configs = [json.loads((folder / n / "config.json").read_text()) for n in ("ann", "bob")]
    assert configs[0]["player"] != configs[1]["player"]
    assert configs[0]["key_path"] != configs[1]["key_path"]
    assert "no player configured" in run().stdout  # the default identity is still unset
    bad = run("games", "--profile", "../x")
    assert bad.returncode != 0 and "profile name" in bad.stderr
