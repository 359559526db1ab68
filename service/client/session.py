"""What every `parley` command stands on: the config file and the key on this machine, and one
HTTP session with the server (retrying 429 and 503 with the same request), beneath the commands
(service.client.commands) and those kept in their own modules (watch, settings).

State lives in one JSON config file, `~/.config/parley/config.json` by default (`--config` or
`PARLEY_CONFIG` choose another, e.g. one per player): the server URL, player id, key id, bearer
token and key path. It holds a secret (the token), so it is written with mode 0600, as is the
key file.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import secrets
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

DEFAULT_SERVER = "http://127.0.0.1:8000"
#: a 503 is tried again this many times, after its Retry-After (at most MAX_RETRY_AFTER s)
RETRIES = 5
#: the answers on which a signed move is sent again unchanged (`Http.post_move`), besides a
#: connection that failed or dropped before the answer
RESEND_STATUSES = (500, 502, 503, 504)
MAX_RETRY_AFTER = 10.0
PROFILE_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


class ClientError(Exception):
    """A failure to report to the user in one line; the command exits with status 1."""


class UsageError(ClientError):
    """Wrong usage the argument parser cannot see (options that go together, a moment that
    does not parse); the command exits with status 2, as for any usage error."""


class ApiError(ClientError):
    """A problem JSON answer from the server: status, machine-readable code, detail."""

    def __init__(self, status: int, code: str, detail: str) -> None:
        super().__init__(f"{status} {code}: {detail}")
        self.status, self.code, self.detail = status, code, detail


# ---- config and key files ------------------------------------------------------------------


def config_dir() -> Path:
    """$XDG_CONFIG_HOME/parley, or ~/.config/parley."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "parley"


def config_path(arg: str | None, profile: str | None = None) -> Path:
    """`--config`, else `--profile` / $PARLEY_PROFILE (`profiles/NAME/config.json` in the
    config folder: one identity each), else $PARLEY_CONFIG, else the default config."""
    if arg:
        return Path(arg).expanduser()
    profile = profile or os.environ.get("PARLEY_PROFILE")
    if profile:
        if not PROFILE_NAME.fullmatch(profile):
            raise ClientError(f"a profile name is letters, digits, '-' and '_', not {profile!r}")
        return config_dir() / "profiles" / profile / "config.json"
    if os.environ.get("PARLEY_CONFIG"):
        return Path(os.environ["PARLEY_CONFIG"]).expanduser()
    return config_dir() / "config.json"


def profiles() -> list[tuple[str, dict[str, Any]]]:
    """Every named profile with its config, by name."""
    folder = config_dir() / "profiles"
    found = sorted(p.parent.name for p in folder.glob("*/config.json")) if folder.exists() else []
    return [(name, load_config(folder / name / "config.json")) for name in found]


def load_config(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as err:
        raise ClientError(f"{path} is not valid JSON: {err}") from err
    if not isinstance(data, dict):
        raise ClientError(f"{path} does not hold a JSON object")
    return data


def write_private(path: Path, data: bytes) -> None:
    """Write a file only its owner can read (0600), atomically: a temp file, then rename."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def save_config(path: Path, config: dict[str, Any]) -> None:
    write_private(path, (json.dumps(config, indent=2, sort_keys=True) + "\n").encode())


def key_path(config: dict[str, Any], cfg_path: Path, arg: str | None = None) -> Path:
    """`--key`, else the config's `key_path`, else `key.pem` beside the config file."""
    if arg:
        return Path(arg).expanduser().resolve()
    if config.get("key_path"):
        return Path(config["key_path"])
    return cfg_path.parent.resolve() / "key.pem"


def load_key(path: Path) -> Ed25519PrivateKey:
    if not path.exists():
        raise ClientError(f"no key at {path}: run `parley keygen` first")
    key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    if not isinstance(key, Ed25519PrivateKey):
        raise ClientError(f"{path} is not an Ed25519 private key")
    return key


def key_pem(key: Ed25519PrivateKey) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


# ---- HTTP ----------------------------------------------------------------------------------


class Http:
    """JSON over HTTP to one Parley server; problem answers become `ApiError`."""

    def __init__(self, base_url: str, token: str | None = None, timeout: float = 30) -> None:
        self.base = base_url.rstrip("/")
        self.token = token
        self.timeout = timeout

    def url(self, path: str) -> str:
        """An API path (`/v1/...`) under the base URL, or an absolute URL as it is."""
        if path.startswith(("http://", "https://")):
            return path
        return self.base + path

    def resolve(self, location: str) -> str:
        """A `Location` the server sent (a path from its root) as an absolute URL."""
        return urllib.parse.urljoin(self.base + "/", location)

    def get(self, path: str, auth: bool = True) -> Any:
        return self.call("GET", path, None, auth)

    def post(self, path: str, body: Any, auth: bool = True) -> Any:
        return self.call("POST", path, body, auth)

    def post_move(self, path: str, envelope: Any) -> Any:
        """POST a signed envelope (or a batch of them) until an answer comes: a connection
        that fails or drops, or a 5xx, sends the very same bytes again (up to RETRIES times).
        Never a newly signed envelope: re-posting the same one is idempotent, and signing the
        move again gives the same derived nonce, hence the same roll (docs/audit.md §6)."""
        return self.call("POST", path, envelope, False, resend=True)

    def call(self, method: str, path: str, body: Any, auth: bool, resend: bool = False) -> Any:
        headers = {"Accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        if auth and self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        request = urllib.request.Request(self.url(path), data, headers, method=method)
        try:
            raw = self._send(request, resend)
        except urllib.error.HTTPError as err:
            raise problem_of(err) from None
        except (urllib.error.URLError, OSError, http.client.HTTPException) as err:
            reason = getattr(err, "reason", err)
            raise ClientError(f"cannot reach {self.base}: {reason}") from None
        try:
            return json.loads(raw or b"null")
        except ValueError:
            raise ClientError(f"{self.url(path)} did not answer with JSON") from None


    def _send(self, request: urllib.request.Request, resend: bool = False) -> bytes:
        """The answer's body. A 503 (`unavailable`: Redis or a store node away, the server
        starting or stopping) changed nothing, so the very same request (for a move, the same
        signed envelope: a re-post is idempotent) goes again after its Retry-After, up to
        RETRIES times; the last 503 raises as any other refusal. With `resend` (a signed
        move, `post_move`) so do the other 5xx and a connection that failed or dropped."""
        attempt = 0
        while True:
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as resp:
                    return resp.read()
            except urllib.error.HTTPError as err:
                if err.code not in (RESEND_STATUSES if resend else (503,)) or attempt == RETRIES:
                    raise
                wait = _seconds(err.headers.get("Retry-After"))
                err.close()
            except (urllib.error.URLError, OSError, http.client.HTTPException):
                # no answer: whether the server stored the move, nobody knows
                if not resend or attempt == RETRIES:
                    raise
                wait = 1.0
            attempt += 1
            time.sleep(wait)


def _seconds(retry_after: str | None) -> float:
    """A Retry-After in seconds, at most MAX_RETRY_AFTER (1 if missing or a date)."""
    try:
        return min(max(float(retry_after or 1), 0.0), MAX_RETRY_AFTER)
    except ValueError:
        return 1.0


def problem_of(err: urllib.error.HTTPError) -> ApiError:
    try:
        body = json.loads(err.read())
    except ValueError:
        body = {}
    if not isinstance(body, dict):
        body = {}
    detail = str(body.get("detail", err.reason))
    fields = "; ".join(_field_errors(body.get("errors")))
    return ApiError(err.code, str(body.get("code", "http_error")),
                    f"{detail} ({fields})" if fields else detail)


def _field_errors(errors: Any, path: str = "") -> list[str]:
    """A 422's per-field messages as `field: message` (what the schema refused, not only that
    the request "does not match its schema"); the location (`json`, `query`) left out."""
    if isinstance(errors, dict):
        return [line for key, value in errors.items() for line in _field_errors(
            value, "" if key in ("json", "query", "form") and not path else
            f"{path}.{key}" if path else str(key))]
    if isinstance(errors, list) and all(isinstance(e, str) for e in errors):
        return [f"{path}: {' '.join(errors)}" if path else " ".join(errors)]
    if isinstance(errors, list):
        return [line for i, e in enumerate(errors) for line in _field_errors(e, f"{path}[{i}]")]
    return []


# ---- the session: config + server + key ----------------------------------------------------


class Session:
    """What one command needs: the config file, the server, the player's token and key."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.path = config_path(args.config, getattr(args, "profile", None))
        self.config = load_config(self.path)
        self.server = (args.server or os.environ.get("PARLEY_SERVER")
                       or self.config.get("server") or DEFAULT_SERVER)
        # the token goes only to the server it was issued by, whatever --server says
        same = self.config.get("server") in (None, self.server)
        self.http = Http(self.server, self.config.get("token") if same else None)

    def save(self) -> None:
        save_config(self.path, self.config)

    def require_player(self) -> str:
        if not self.config.get("player") or not self.config.get("token"):
            raise ClientError(f"no player in {self.path}: run `parley register NAME` first")
        return self.config["player"]

    def key(self) -> Ed25519PrivateKey:
        return load_key(key_path(self.config, self.path))


def out(text: str = "") -> None:
    sys.stdout.write(text + "\n")


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def write_json(data: Any, output: str | None) -> None:
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    if output and output != "-":
        Path(output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)


# ---- commands ------------------------------------------------------------------------------
