"""`parley ... | head -1`: a reader that leaves ends the command quietly (no BrokenPipeError
traceback), with the status a command SIGPIPE ended has (141), for every command: the client's,
`--help`, the server's own, and `watch`, which otherwise would take the closed pipe for a lost
connection and go on."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from service.cli import PIPE_CLOSED
from tests.e2e.test_cli import Cli
from tests.e2e.test_cli_watch import listening, players

pytestmark = pytest.mark.slow


@contextmanager
def closed_pipe() -> Iterator[int]:
    """A pipe's write end whose reader has already gone: every write to it fails, as the
    writes after `head -1` took its line do (closed before the command starts, so no race)."""
    read, write = os.pipe()
    os.close(read)
    try:
        yield write
    finally:
        os.close(write)


def into_closed_pipe(cli: Cli, *args: str) -> subprocess.CompletedProcess:
    with closed_pipe() as out:
        return subprocess.run([*cli.command, *args], env=cli.env, stdout=out,
                              stderr=subprocess.PIPE, text=True, timeout=60)


def test_commands_without_a_server_end_quietly(tmp_path: Path) -> None:
    cli = Cli(tmp_path, "ann")
    for args in (["errors"], ["openapi"], ["--help"], ["view", "--help"]):
        ended = into_closed_pipe(cli, *args)
        assert ended.stderr == "" and ended.returncode in (0, PIPE_CLOSED), (args, ended)
    assert into_closed_pipe(cli, "errors").returncode == PIPE_CLOSED


def test_client_commands_and_watch_end_quietly(server, tmp_path: Path) -> None:
    server.start_stream()
    game, ann, bob = players(server, tmp_path)
    for args in (["view", game], ["games"], ["view", game, "--json"]):
        ended = into_closed_pipe(ann, *args)
        assert (ended.returncode, ended.stderr) == (PIPE_CLOSED, ""), args
    piped = subprocess.run(["bash", "-c", f"parley view {game} | head -1"], text=True,
                           env={**ann.env, "PATH": f"{Path(ann.command[0]).parent}:"
                                                   f"{ann.env['PATH']}"},
                           capture_output=True, timeout=60)
    assert piped.stdout.count("\n") == 1 and piped.stderr == "", piped

    with closed_pipe() as out:
        watch = subprocess.Popen([*ann.command, "watch"], env=ann.env, stdout=out,
                                 stderr=subprocess.PIPE, text=True)
    listening(server, ann)
    ann.out("move", game, json.dumps(ann.view(game)["legal_moves"][0]))
    _, err = watch.communicate(timeout=30)  # ends at its first line, not reconnecting
    assert (watch.returncode, err) == (PIPE_CLOSED, "")
