"""The data folder is its owner's alone: the embedded Redis's password and file modes.

The embedded Redis listens on 127.0.0.1, where every local user can connect, and its AOF holds
what no player may see before the end (unrevealed dice seeds, hidden setups). So it asks for a
password, made at the first start and kept in `<PARLEY_DATA>/redis.password` (0600); every
process of the same data folder reads it from there (`service.config.Config.REDIS_URL`). And
the folders `parley run` and `parley redis` keep are 0700, Redis's files in them 0600.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
from pathlib import Path

PASSWORD_FILE = "redis.password"
#: what a password may hold: it goes into a Redis URL and into redis-server's configuration
#: unquoted (a made one is 43 of these; an operator may write their own)
PASSWORD_CHARS = re.compile(r"[A-Za-z0-9._~-]+")


class PasswordFileError(RuntimeError):
    """The password file is unusable; the message says how to fix it."""


def password_path(data_dir: Path) -> Path:
    return data_dir / PASSWORD_FILE


def read_password(data_dir: Path) -> str | None:
    """The password kept in `data_dir`, or None before the first start made one."""
    path = password_path(data_dir)
    try:
        password = path.read_text().strip()
    except FileNotFoundError:
        return None
    if not PASSWORD_CHARS.fullmatch(password):
        raise PasswordFileError(f"{path} must hold one password of letters, digits and . _ ~ - "
                                f"only; delete it and a new one is made at the next start")
    return password


def embedded_password(data_dir: Path) -> str:
    """The password kept in `data_dir`, made (0600) if there is none yet.

    Every process of a Procfile starts at once, so any of them may come first: the password is
    written whole under a private name, then linked into place, and a process that finds one
    there already uses it; none reads half a file or keeps a password of its own."""
    password = read_password(data_dir)
    if password is not None:
        tighten(password_path(data_dir), 0o600)
        return password
    data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = password_path(data_dir)
    write_once(path, (secrets.token_urlsafe(32) + "\n").encode())
    return embedded_password(data_dir)


def write_once(path: Path, content: bytes) -> None:
    """Create `path` (0600) holding `content`, unless a process starting at the same moment
    made it first (then theirs stands): written whole under a private name, then linked into
    place, so that nobody ever reads a half-written file."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(content)
            fh.flush()
            os.fsync(fh.fileno())
        with contextlib.suppress(FileExistsError):  # another process was first: use theirs
            os.link(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def tighten(path: Path, mode: int) -> None:
    """Give `path` no more than `mode` (an older start may have left it readable by all)."""
    if path.stat().st_mode & 0o777 & ~mode:
        path.chmod(mode)


def make_private(folder: Path) -> None:
    """Create `folder` if missing; it, and every folder under it, 0700, every file 0600."""
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    tighten(folder, 0o700)
    for parent, dirs, files in os.walk(folder):
        for name in dirs:
            tighten(Path(parent, name), 0o700)
        for name in files:
            tighten(Path(parent, name), 0o600)
