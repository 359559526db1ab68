"""Configuration: one class reading the environment with typed parsing; tests subclass it."""

from __future__ import annotations

import os
from pathlib import Path

from service.ops.private_data import read_password


def _env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    return int(value) if value not in (None, "") else default


def _env_str(name: str, default: str) -> str:
    value = os.environ.get(name)
    return value if value not in (None, "") else default


APPENDFSYNC_CHOICES = ("always", "everysec", "no")


def appendfsync() -> str:
    """The embedded Redis's AOF fsync policy: PARLEY_REDIS_APPENDFSYNC (or its older name
    PARLEY_APPENDFSYNC), `everysec` by default; `always` loses nothing on a power failure."""
    value = _env_str("PARLEY_REDIS_APPENDFSYNC", _env_str("PARLEY_APPENDFSYNC", "everysec"))
    if value not in APPENDFSYNC_CHOICES:
        raise ValueError(f"PARLEY_REDIS_APPENDFSYNC must be one of {list(APPENDFSYNC_CHOICES)}, "
                         f"not {value!r}")
    return value


def embedded_redis_url(data_dir: Path, port: int, password: str | None = None) -> str:
    """The URL of the embedded Redis on `port`, with `password` or else the one kept in
    `data_dir` (none before the first start made one)."""
    password = password or read_password(data_dir)
    auth = f":{password}@" if password else ""
    return f"redis://{auth}127.0.0.1:{port}/0"


class Config:
    """Settings of the web app and the workers, read once from the environment.

    `REDIS_URL` serves RQ's queues and, unless `PARLEY_STORE_URL` is set, the game store too.
    With neither set, `parley run` starts the bundled Redis and sets `REDIS_URL` for its children.
    """

    def __init__(self) -> None:
        self.DATA_DIR: Path = Path(os.environ.get("PARLEY_DATA", "var")).resolve()
        #: the embedded Redis's port (`parley run`, the Procfile's `parley redis`)
        self.REDIS_PORT: int = _env_int("PARLEY_REDIS_PORT", 6390)
        #: unset: the embedded Redis, with the password kept in the data folder
        #: (`service.ops.private_data`; `parley run` starts it and sets REDIS_URL for its children)
        self.REDIS_URL: str = (os.environ.get("REDIS_URL")
                               or embedded_redis_url(self.DATA_DIR, self.REDIS_PORT))
        self.STORE_URL: str = os.environ.get("PARLEY_STORE_URL") or self.REDIS_URL
        self.STORE_CLUSTER: bool = os.environ.get("PARLEY_STORE_CLUSTER") == "1"
        #: on a cluster store, a move is acknowledged once this many replicas of its node hold
        #: it (WAIT), within PARLEY_STORE_WAIT_MS, else 503 (docs/operations.md "Redis Cluster")
        self.STORE_WAIT_REPLICAS: int = _env_int("PARLEY_STORE_WAIT_REPLICAS", 0)
        self.STORE_WAIT_MS: int = _env_int("PARLEY_STORE_WAIT_MS", 1000)
        self.PORT: int = _env_int("PARLEY_PORT", 8000)
        self.BASE_URL: str = os.environ.get(
            "PARLEY_BASE_URL", f"http://127.0.0.1:{self.PORT}"
        ).rstrip("/")
        self.QUEUE: str = os.environ.get("PARLEY_QUEUE", "parley")
        #: largest request body accepted; a Stratego setup envelope is about 2 KB
        self.MAX_CONTENT_LENGTH: int = _env_int("PARLEY_MAX_BODY", 64 * 1024)
        #: answer the seat view GET and the move POST without the framework when they
        #: succeed (service/web/fastpath); PARLEY_HOT_PATHS=0 sends every request through Flask
        self.HOT_PATHS: bool = os.environ.get("PARLEY_HOT_PATHS", "1") != "0"
        #: game states each web process foresees for the next move's one round trip
        #: (service/domain/foresight.py), and each worker keeps of its last commits
        #: (service/domain/kept_states.py); about 40 KB each for Stratego; 0 turns both off
        self.FORESEE_GAMES: int = _env_int("PARLEY_FORESEE_GAMES", 512)
        #: a web process applies a foreseen move that draws nothing itself, in the move's one
        #: round trip (service/domain/settle.py); PARLEY_SETTLE_MOVES=0 leaves every move
        #: to the workers
        self.SETTLE_MOVES: bool = os.environ.get("PARLEY_SETTLE_MOVES", "1") != "0"
        #: how long a resolve job waits for a game's lock held by another worker
        self.LOCK_WAIT_SECONDS: float = float(os.environ.get("PARLEY_LOCK_WAIT", "10"))
        # ---- limits (docs/operations.md "Limits") ----
        #: rate limits (flask-limiter syntax, `;` separates several) are kept in Redis so that
        #: every web process counts together; PARLEY_RATE_LIMITS=0 turns them all off
        self.RATE_LIMITS_ENABLED: bool = os.environ.get("PARLEY_RATE_LIMITS", "1") != "0"
        self.RATE_LIMIT_STORAGE: str = _env_str("PARLEY_RATE_LIMIT_STORAGE", self.REDIS_URL)
        self.LIMIT_MOVES_PER_PLAYER: str = _env_str("PARLEY_LIMIT_MOVES_PER_PLAYER",
                                                    "600/minute")
        self.LIMIT_MOVES_PER_ADDRESS: str = _env_str("PARLEY_LIMIT_MOVES_PER_ADDRESS",
                                                     "3000/minute")
        self.LIMIT_REGISTER_PER_ADDRESS: str = _env_str("PARLEY_LIMIT_REGISTER_PER_ADDRESS",
                                                        "300/minute")
        self.LIMIT_CREATE_PER_PLAYER: str = _env_str("PARLEY_LIMIT_CREATE_PER_PLAYER",
                                                     "120/minute")
        self.LIMIT_CREATE_PER_ADDRESS: str = _env_str("PARLEY_LIMIT_CREATE_PER_ADDRESS",
                                                      "600/minute")
        #: proxies in front of the web processes whose X-Forwarded-For is trusted (0: none,
        #: the peer address is the client's)
        self.PROXY_HOPS: int = _env_int("PARLEY_PROXY_HOPS", 0)
        #: the bearer token `GET /metrics` requires; empty: only loopback clients may scrape
        self.METRICS_TOKEN: str = os.environ.get("PARLEY_METRICS_TOKEN", "")
        #: `parley_games` is counted again at most once in this many seconds (0: at every
        #: scrape): counting reads every game's status
        self.GAME_COUNT_SECONDS: int = _env_int("PARLEY_GAME_COUNT_SECONDS", 60)
        #: games one player may hold that have not started yet (created or joined)
        self.MAX_OPEN_GAMES: int = _env_int("PARLEY_MAX_OPEN_GAMES", 50)
        self.MAX_KEYS_PER_PLAYER: int = _env_int("PARLEY_MAX_KEYS", 32)
        self.MAX_TOKENS_PER_PLAYER: int = _env_int("PARLEY_MAX_TOKENS", 16)
        #: streams and long polls the stream process lets one player, and one address (as
        #: PARLEY_PROXY_HOPS gives it), hold open at once (docs/live.md "Limits")
        self.MAX_STREAMS_PER_PLAYER: int = _env_int("PARLEY_MAX_STREAMS_PER_PLAYER", 8)
        self.MAX_STREAMS_PER_ADDRESS: int = _env_int("PARLEY_MAX_STREAMS_PER_ADDRESS", 128)
        self.MAX_POLLS_PER_PLAYER: int = _env_int("PARLEY_MAX_POLLS_PER_PLAYER", 32)
        self.MAX_POLLS_PER_ADDRESS: int = _env_int("PARLEY_MAX_POLLS_PER_ADDRESS", 128)
        self.SERVER_KEY_PATH: Path = Path(
            os.environ.get("PARLEY_SERVER_KEY", str(self.DATA_DIR / "server_key.pem"))
        )
        # notifications (docs/notifications.md)
        #: smtp://[user:pass@]host[:port][?starttls=0|1] or smtps://...; empty: Maildir outbox
        self.SMTP_URL: str = os.environ.get("PARLEY_SMTP_URL", "")
        self.MAIL_FROM: str = os.environ.get("PARLEY_MAIL_FROM", "Parley <parley@localhost>")
        self.OUTBOX_DIR: Path = self.DATA_DIR / "outbox"
        # ---- moves by mail reply (docs/notifications.md "Moves by reply") ----
        #: replies go to move-<token>@ this domain (default: the domain of PARLEY_MAIL_FROM)
        self.MAIL_REPLY_DOMAIN: str = _env_str(
            "PARLEY_MAIL_REPLY_DOMAIN", self.MAIL_FROM.rsplit("@", 1)[-1].rstrip(">").strip()
            or "localhost")
        # ---- address confirmation (docs/notifications.md "Address confirmation") ----
        #: at most one confirmation mail per this many seconds to one address, and at most
        #: so many a day to one address and for one player: confirmations cannot spam either
        self.CONFIRM_INTERVAL: int = _env_int("PARLEY_CONFIRM_INTERVAL", 600)
        self.CONFIRMS_PER_ADDRESS: int = _env_int("PARLEY_CONFIRMS_PER_ADDRESS", 3)
        self.CONFIRMS_PER_PLAYER: int = _env_int("PARLEY_CONFIRMS_PER_PLAYER", 5)
        #: vacation a player may take in a year (a twelfth accrues each month; docs/games.md)
        self.VACATION_DAYS: int = _env_int("PARLEY_VACATION_DAYS", 30)
        # ---- invitations by mail (docs/notifications.md "Invitations and mail-only players") --
        #: a player sends at most so many invitations a day, an address gets at most so many
        self.INVITES_PER_PLAYER: int = _env_int("PARLEY_INVITES_PER_PLAYER", 20)
        self.INVITES_PER_ADDRESS: int = _env_int("PARLEY_INVITES_PER_ADDRESS", 3)
        #: `parley mail-in` (SMTP, or LMTP with --lmtp) listens here
        self.MAIL_IN_HOST: str = _env_str("PARLEY_MAIL_IN_HOST", "127.0.0.1")
        self.MAIL_IN_PORT: int = _env_int("PARLEY_MAIL_IN_PORT", self.PORT + 2)
        self.WEBHOOK_ALLOW_PRIVATE: bool = os.environ.get("PARLEY_WEBHOOK_ALLOW_PRIVATE") == "1"
        self.WEBHOOK_TIMEOUT: float = float(os.environ.get("PARLEY_WEBHOOK_TIMEOUT", "10"))
        #: first retry after this many seconds, doubling each time
        self.WEBHOOK_RETRY_BASE: float = float(os.environ.get("PARLEY_WEBHOOK_RETRY_BASE", "30"))
        self.WEBHOOK_MAX_ATTEMPTS: int = _env_int("PARLEY_WEBHOOK_MAX_ATTEMPTS", 8)
        #: a webhook whose deliveries keep failing for this long is disabled (owner told)
        self.WEBHOOK_DISABLE_AFTER: float = float(
            os.environ.get("PARLEY_WEBHOOK_DISABLE_AFTER", str(3 * 86400)))
        self.MAX_WEBHOOKS: int = _env_int("PARLEY_MAX_WEBHOOKS", 10)
        # ---- live updates (docs/live.md) ----
        #: the stream process (SSE and long polls) listens here; the API redirects to it
        self.STREAM_PORT: int = _env_int("PARLEY_STREAM_PORT", self.PORT + 1)
        #: how clients reach the stream process (behind a proxy: its public URL)
        self.STREAM_URL: str = _env_str(
            "PARLEY_STREAM_URL", f"http://127.0.0.1:{self.STREAM_PORT}").rstrip("/")
        # ---- processes (docs/operations.md) ----
        #: set by `parley run` for its children: the file saying whether the run is whole
        #: (service/ops/run_state.py); empty for a process started on its own
        self.RUN_STATE: str = os.environ.get("PARLEY_RUN_STATE", "")
        self.WEB_PROCESSES: int = _env_int("PARLEY_WEB_PROCESSES", 1)
        self.WEB_THREADS: int = _env_int("PARLEY_WEB_THREADS", 4)
        #: `simple` (jobs in the worker process) or `fork` (RQ's fork per job)
        self.WORKER_CLASS: str = _env_str("PARLEY_WORKER_CLASS", "simple")
        #: RQ heartbeat: a worker killed outright drops out of the registry WORKER_TTL + 60 s later
        self.WORKER_TTL: int = _env_int("PARLEY_WORKER_TTL", 30)
        #: how often a worker sweeps for games whose wake was lost
        self.SWEEP_SECONDS: float = float(_env_str("PARLEY_SWEEP_SECONDS", "30"))
        self.ALLOW_UNSAFE_REDIS: bool = os.environ.get("PARLEY_ALLOW_UNSAFE_REDIS") == "1"
        # ---- the archive of finished games (docs/operations.md "Archive") ----
        #: a SQLAlchemy URL: SQLite (the default, in the data folder) or PostgreSQL
        self.ARCHIVE_URL: str = _env_str(
            "PARLEY_ARCHIVE_URL", f"sqlite:///{self.DATA_DIR / 'archive.sqlite3'}")
        #: a finished game moves to the archive this many seconds after its end was notified
        self.ARCHIVE_AFTER: float = float(_env_str("PARLEY_ARCHIVE_AFTER", "600"))
        # ---- the resolve queue's drainers (docs/performance.md) ----
        #: no new game after this many seconds of draining; how long an idle drainer waits
        self.DRAIN_SECONDS: float = float(_env_str("PARLEY_DRAIN_SECONDS", "0.5"))
        self.DRAIN_LINGER: float = float(_env_str("PARLEY_DRAIN_LINGER", "0.05"))
        #: a drainer takes up to this many games from the ready list at once
        self.DRAIN_TAKE: int = _env_int("PARLEY_DRAIN_TAKE", 16)
        #: a waiting job's lease: if no worker starts it by then, the next wake enqueues another
        self.DRAIN_START_TTL_MS: int = _env_int("PARLEY_DRAIN_START_TTL_MS", 5000)
        #: a running job's lease, renewed at every game it takes (longer than one game's drain)
        self.DRAIN_RUN_TTL_MS: int = _env_int("PARLEY_DRAIN_RUN_TTL_MS", 6000)
        #: a wake enqueues one more job when the list holds this many games per live drainer
        self.DRAIN_BACKLOG: int = _env_int("PARLEY_DRAIN_BACKLOG", 32)
        #: a game's lock expires this long after a worker died holding it
        self.LOCK_TTL_MS: int = _env_int("PARLEY_LOCK_TTL_MS", 5000)
        # flask-smorest / OpenAPI
        self.API_TITLE = "Parley"
        self.API_VERSION = "v1"
        self.OPENAPI_VERSION = "3.1.0"
        self.OPENAPI_URL_PREFIX = "/"
        self.OPENAPI_JSON_PATH = "openapi.json"

    def as_flask(self) -> dict:
        """The settings as a Flask config mapping (upper-case names only)."""
        return {k: v for k, v in vars(self).items() if k.isupper()}
