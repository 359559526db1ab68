"""The web processes' access log keeps no secret that travels in a URL."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import requests

from service.ops.ports import free_port
from tests.waiting import wait_until


def test_the_access_log_keeps_paths_but_no_query_strings(redis_url: str, tmp_path: Path
                                                         ) -> None:
    port = free_port()
    log = tmp_path / "access.log"
    env = {**os.environ, "REDIS_URL": redis_url, "PARLEY_DATA": str(tmp_path)}
    web = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "web", "--port", str(port),
         "--access-log", str(log)], env=env, start_new_session=True)
    try:
        url = f"http://127.0.0.1:{port}"

        def answering() -> bool:
            assert web.poll() is None, "the web server exited"
            try:
                requests.get(url + "/v1/health", timeout=2)
            except requests.RequestException:
                return False
            return True
        wait_until(answering, 60, "the web server answering")
        secret = "tok3n5ecretvalue"
        resp = requests.get(f"{url}/v1/mail/unsubscribe?player=p_x&game=g_x&token={secret}",
                            headers={"Referer": f"https://mail.example/?t={secret}"},
                            timeout=5)
        assert resp.status_code < 500
        wait_until(lambda: log.exists() and "/v1/mail/unsubscribe" in log.read_text(), 10,
                   "the request's access log line")
        text = log.read_text()
        assert "GET /v1/mail/unsubscribe HTTP/1.1" in text
        assert secret not in text and "token=" not in text
    finally:
        web.terminate()
        web.wait(20)
