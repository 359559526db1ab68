"""What `make run` tells a newcomer, read from a real `parley run`: where mail goes (the
Maildir outbox that follows `PARLEY_DATA`, or the SMTP URL without its password), and that
the README's registration snippet, run as written, registers a player with the server."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import requests

from tests.ops.test_supervision import System, _healthy
from tests.waiting import wait_until

ROOT = Path(__file__).resolve().parents[2]


class Run:
    """`parley run` in the system's environment, its output gathered line by line."""

    def __init__(self, system: System, **env: str) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "service.cli", "run"],
                                     env={**system.env, **env}, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True,
                                     start_new_session=True)
        system.seen.add(self.proc.pid)
        self.lines: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    def line(self, start: str, timeout: float = 60) -> str:
        wait_until(lambda: any(x.startswith(start) for x in self.lines)
                   or self.proc.poll() is not None, timeout, start)
        found = [x for x in self.lines if x.startswith(start)]
        assert found, self.lines
        return found[0]

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGINT)
        assert self.proc.wait(60) == 0, self.lines


def _readme_snippet() -> str:
    """The README's Python block that computes a registration's `proof`, as written."""
    blocks = re.findall(r"^( *)```python\n(.*?)^\1```", (ROOT / "README.md").read_text(),
                        re.S | re.M)
    found = [textwrap.dedent(code) for _, code in blocks if "parley-key-v1" in code]
    assert len(found) == 1, blocks
    return found[0]


def test_parley_run_says_where_mail_goes_and_the_readme_registers(system: System) -> None:
    run = Run(system)
    outbox = Path(system.env["PARLEY_DATA"]) / "outbox"
    assert run.line("parley: mail:") == f"parley: mail: Maildir {outbox} (no PARLEY_SMTP_URL)"
    run.line("parley: web on")
    url = f"http://127.0.0.1:{system.env['PARLEY_PORT']}"
    wait_until(lambda: _healthy(url) or run.proc.poll() is not None, 60, "parley run answers")

    made = subprocess.run([sys.executable, "-c", _readme_snippet()], capture_output=True,
                          text=True, check=True, timeout=60)
    body = json.loads(made.stdout)
    assert set(body) == {"name", "public_key", "proof"}
    resp = requests.post(f"{url}/v1/players", json=body, timeout=10)
    assert resp.status_code == 201, resp.text
    assert resp.json()["id"].startswith("p_")
    forged = {**body, "name": "Eve"}  # the proof covers the name
    assert requests.post(f"{url}/v1/players", json=forged,
                         timeout=10).json()["code"] == "bad_key_proof"
    run.stop()


def test_parley_run_names_the_smtp_server_without_its_password(system: System) -> None:
    run = Run(system, PARLEY_SMTP_URL="smtp://parley:s3cret@mail.example.org:587?starttls=1")
    line = run.line("parley: mail:")
    assert line == "parley: mail: SMTP smtp://parley:***@mail.example.org:587?starttls=1"
    run.line("parley: web on")
    time.sleep(0.5)
    run.stop()
    assert not any("s3cret" in x for x in run.lines)
