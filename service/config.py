"""Configuration: one class reading the environment with typed parsing; tests subclass it."""

from __future__ import annotations

import os
from pathlib import Path


def _env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    return int(value) if value not in (None, "") else default


class Config:
    """Settings of the web app and the workers, read once from the environment.

    `REDIS_URL` serves RQ's queues and, unless `PARLEY_STORE_URL` is set, the game store too.
    With neither set, `parley run` starts the bundled Redis and sets `REDIS_URL` for its children.
    """

    def __init__(self) -> None:
        self.REDIS_URL: str = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
        self.STORE_URL: str = os.environ.get("PARLEY_STORE_URL") or self.REDIS_URL
        self.STORE_CLUSTER: bool = os.environ.get("PARLEY_STORE_CLUSTER") == "1"
        self.DATA_DIR: Path = Path(os.environ.get("PARLEY_DATA", "var")).resolve()
        self.PORT: int = _env_int("PARLEY_PORT", 8000)
        self.BASE_URL: str = os.environ.get(
            "PARLEY_BASE_URL", f"http://127.0.0.1:{self.PORT}"
        ).rstrip("/")
        self.QUEUE: str = os.environ.get("PARLEY_QUEUE", "parley")
        #: largest request body accepted; a Stratego setup envelope is about 2 KB
        self.MAX_CONTENT_LENGTH: int = _env_int("PARLEY_MAX_BODY", 64 * 1024)
        #: how long a resolve job waits for a game's lock held by another worker
        self.LOCK_WAIT_SECONDS: float = float(os.environ.get("PARLEY_LOCK_WAIT", "10"))
        self.SERVER_KEY_PATH: Path = Path(
            os.environ.get("PARLEY_SERVER_KEY", str(self.DATA_DIR / "server_key.pem"))
        )
        # flask-smorest / OpenAPI
        self.API_TITLE = "Parley"
        self.API_VERSION = "v1"
        self.OPENAPI_VERSION = "3.1.0"
        self.OPENAPI_URL_PREFIX = "/"
        self.OPENAPI_JSON_PATH = "openapi.json"
        self.JSON_SORT_KEYS = False

    def as_flask(self) -> dict:
        """The settings as a Flask config mapping (upper-case names only)."""
        return {k: v for k, v in vars(self).items() if k.isupper()}
