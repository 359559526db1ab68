"""Real receivers on loopback: an aiosmtpd SMTP server and an HTTP server taking webhooks."""

from __future__ import annotations

import email
import email.policy
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from email.message import EmailMessage
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from flask import Flask
from rq import SimpleWorker
from rq.job import Job

from service.config import Config
from service.ops.ports import free_port
from tests import confirming
from tests.conftest import testing_app
from tests.players import TestPlayer


class Mailbox:
    """An aiosmtpd handler keeping every message it receives (and its size as received)."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []
        self.envelopes: list[tuple[str, list[str]]] = []
        self.sizes: list[int] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
        msg = email.message_from_bytes(envelope.content, policy=email.policy.default)
        self.messages.append(msg)  # type: ignore[arg-type]
        self.envelopes.append((envelope.mail_from, list(envelope.rcpt_tos)))
        self.sizes.append(len(envelope.content))
        return "250 OK"

    def to(self, address: str) -> list[EmailMessage]:
        return [m for m in self.messages if m["To"] == address]

    def size_of(self, msg: EmailMessage) -> int:
        """The bytes of `msg` as the server received them."""
        return self.sizes[next(i for i, m in enumerate(self.messages) if m is msg)]

    def take_confirmation(self, address: str) -> EmailMessage | None:
        """The latest confirmation mail to `address`, taken out of the box."""
        for i in reversed(range(len(self.messages))):
            if confirming.is_confirmation(self.messages[i], address):
                del self.envelopes[i], self.sizes[i]
                return self.messages.pop(i)
        return None


#: the running test SMTP servers' boxes by PARLEY_SMTP_URL: where `confirm` finds the mail
MAILBOXES: dict[str, Mailbox] = {}


@pytest.fixture
def smtp(monkeypatch: pytest.MonkeyPatch) -> Iterator[Mailbox]:
    """A real SMTP server on loopback; PARLEY_SMTP_URL points at it."""
    box = Mailbox()
    port = free_port()
    controller = Controller(box, hostname="127.0.0.1", port=port)
    controller.start()
    url = f"smtp://127.0.0.1:{port}"
    monkeypatch.setenv("PARLEY_SMTP_URL", url)
    MAILBOXES[url] = box
    yield box
    MAILBOXES.pop(url, None)
    controller.stop()


@dataclass
class Receiver:
    """A webhook receiver; answers from `plan` in order (then 200) and records every request."""

    url: str = ""
    plan: list[int] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)

    def bodies(self, kind: str | None = None) -> list[dict[str, Any]]:
        out = [json.loads(r["body"]) for r in self.requests]
        return [b for b in out if kind is None or b["type"] == kind]


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    rec = Receiver()
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802
            body = self.rfile.read(int(self.headers.get("content-length", 0)))
            with lock:
                rec.requests.append({"headers": {k.lower(): v for k, v in self.headers.items()},
                                     "body": body.decode(), "path": self.path})
                status = rec.plan.pop(0) if rec.plan else 200
            self.send_response(status)
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    rec.url = f"http://127.0.0.1:{server.server_address[1]}/hook"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield rec
    server.shutdown()
    server.server_close()


@pytest.fixture
def notify_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Webhooks to loopback allowed, and quick retries (as the tests' receivers need)."""
    monkeypatch.setenv("PARLEY_WEBHOOK_ALLOW_PRIVATE", "1")
    monkeypatch.setenv("PARLEY_WEBHOOK_RETRY_BASE", "0.2")
    monkeypatch.setenv("PARLEY_WEBHOOK_MAX_ATTEMPTS", "4")


@pytest.fixture
def napp(notify_env: None, smtp: Mailbox, config: Config) -> Flask:  # noqa: ARG001
    """The app with SMTP to the test server and loopback webhooks allowed: on a Config read
    now, since a test may have asked for `config` before these two set the environment."""
    return testing_app(Config())


@pytest.fixture
def nclient(napp):
    return napp.test_client()


@pytest.fixture
def work(napp):
    """Run queued jobs, and scheduled ones as they fall due, until nothing is left within
    `wait` seconds (a real SimpleWorker in this process; scheduled jobs moved as RQ's
    scheduler moves them)."""
    queue = napp.extensions["parley_queue"]

    def run(wait: float = 0.0) -> None:
        deadline = time.monotonic() + wait
        while True:
            SimpleWorker([queue], connection=queue.connection).work(burst=True,
                                                                    logging_level="WARNING")
            registry = queue.scheduled_job_registry
            due = registry.get_jobs_to_schedule(int(time.time()) + 1)
            for job in Job.fetch_many(due, connection=queue.connection):
                if job is not None:
                    registry.remove(job)
                    queue.enqueue_job(job)
            if due:
                continue
            if registry.count == 0 or time.monotonic() >= deadline:
                break
            time.sleep(0.1)
        failed = queue.failed_job_registry.get_job_ids()
        assert not failed, f"jobs failed: {failed}"

    return run


def register(client: Any, name: str, email_address: str | None = None,
             confirmed: bool = True) -> TestPlayer:
    """A new player; with an address, confirmed as its owner does it (`confirm`), and moves
    by mail allowed by a signed consent, unless `confirmed` is False."""
    player = TestPlayer(name)
    body: dict[str, Any] = player.registration()
    if email_address:
        body["email"] = email_address
    resp = client.post("/v1/players", json=body)
    assert resp.status_code == 201, resp.get_json()
    data = resp.get_json()
    player.id, player.key_id, player.token = data["id"], data["key_id"], data["token"]
    if email_address and confirmed:
        confirm(client, email_address)
        given = client.post(f"/v1/players/{player.id}/consents", json=player.consent(),
                            headers=player.auth)
        assert given.status_code == 201, given.get_json()  # moves by mail allowed
    return player


def confirm(client: Any, address: str) -> None:
    """Confirm `address` as its owner does: a real worker runs the queued jobs (the
    confirmation mail's among them), the mail is taken from the box it reached (the test SMTP
    server's, or else the Maildir outbox) and its link followed through `client`."""
    app = client.application
    queue = app.extensions["parley_queue"]
    SimpleWorker([queue], connection=queue.connection).work(burst=True, logging_level="WARNING")
    assert not queue.failed_job_registry.get_job_ids()
    box = MAILBOXES.get(app.config["SMTP_URL"])
    msg = box.take_confirmation(address) if box else \
        confirming.take_from_maildir(app.config["OUTBOX_DIR"], address)
    assert msg is not None, f"no confirmation mail to {address}"
    assert confirming.follow(client, confirming.link_of(msg))["email_confirmed"] is True


def start_game(client: Any, players: list[TestPlayer], ruleset: str = "stratego",
               options: dict | None = None, time_control: dict | None = None) -> str:
    body: dict[str, Any] = {"ruleset": ruleset, "options": options or {},
                            "players": len(players)}
    if time_control:
        body["time_control"] = time_control
    resp = client.post("/v1/games", json=body, headers=players[0].auth)
    assert resp.status_code == 201, resp.get_json()
    gid = resp.get_json()["id"]
    for p in players:
        r = client.post(f"/v1/games/{gid}/join", json=p.join_body(gid, p.name), headers=p.auth)
        assert r.status_code == 200, r.get_json()
    return gid
