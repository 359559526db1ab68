"""SIGTERM lets in-flight requests and jobs finish (real `parley web` and `parley worker`)."""

from __future__ import annotations

import json
import os
import signal
import socket
import time
import uuid
from pathlib import Path

import pytest
import redis
from rq import Queue
from rq.job import Job, JobStatus

from tests.ops.test_web_server import get, quiet_web_server
from tests.players import TestPlayer
from tests.waiting import wait_until

pytestmark = pytest.mark.slow


def test_sigterm_lets_a_slow_request_finish(server) -> None:
    web = server.procs[0]
    body = json.dumps(TestPlayer("slow").registration()).encode()
    host, port = server.url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=20)
    sock.sendall(b"POST /v1/players HTTP/1.1\r\nHost: test\r\nContent-Type: application/json"
                 b"\r\nConnection: close\r\nContent-Length: " + str(len(body)).encode()
                 + b"\r\n\r\n" + body[:10])
    time.sleep(0.5)  # the request is in a web worker, reading its body
    os.kill(web.pid, signal.SIGTERM)
    time.sleep(1.0)  # the web server is stopping; its worker still holds the request
    assert web.poll() is None
    sock.sendall(body[10:])
    response = b""
    while chunk := sock.recv(65536):
        response += chunk
    sock.close()
    head, _, payload = response.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 201"), response[:200]
    assert json.loads(payload)["token"].startswith("pt_")
    assert web.wait(30) == 0


def test_sigterm_does_not_wait_for_idle_kept_alive_connections(redis_url: str,
                                                               tmp_path: Path) -> None:
    """A client that keeps its connection open between moves does not hold the stop up.

    The server is started quietly, with no request before its workers are up: a connection
    accepted while a worker is starting can hold that worker's stop up to the graceful
    period (docs/operations.md, "Stopping"), which this test does not cover.
    """
    with quiet_web_server(redis_url, tmp_path) as (web, port):
        idle = [socket.create_connection(("127.0.0.1", port), timeout=20) for _ in range(4)]
        for sock in idle:
            response = get(sock, b"/v1/server-key")
            assert response.startswith(b"HTTP/1.1 200") and b"connection: close" not in response
        web.send_signal(signal.SIGTERM)
        stopping = time.monotonic()
        assert web.wait(30) == 0
        assert time.monotonic() - stopping < 5
        for sock in idle:
            assert sock.recv(65536) == b""  # closed by the server
            sock.close()


def test_sigterm_lets_a_running_job_finish(server, redis_url: str) -> None:
    worker = server.procs[1]
    conn = redis.Redis.from_url(redis_url)
    wait_until(lambda: server.get("/v1/health").status_code == 200, 20, interval=0.05)
    key = f"slow-job:{uuid.uuid4().hex}"
    job = Queue("parley", connection=conn).enqueue("tests.ops.jobs.slow_job", redis_url, key,
                                                  3.0, job_timeout=60)
    wait_until(lambda: conn.get(key + ":started") is not None, 20, interval=0.05)
    os.killpg(worker.pid, signal.SIGTERM)  # as a process manager does: the whole group
    sent = time.time()
    assert worker.wait(30) == 0
    assert conn.get(key) == b"done"  # the job ran to its end after the signal
    assert float(conn.get(key + ":started")) + 3.0 > sent
    assert Job.fetch(job.id, connection=conn).get_status() == JobStatus.FINISHED
    health = server.get("/v1/health")
    assert health.status_code == 503 and health.json()["reason"] == "no worker is running"
