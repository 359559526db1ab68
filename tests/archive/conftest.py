"""The archive's tests: the real bundled Redis, and a real archive database behind it, SQLite
in the test's data folder and PostgreSQL (the server the `pgserver` package bundles), each
test once per database."""

from __future__ import annotations

import uuid
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from service.config import Config

BACKENDS = ("sqlite", "postgresql")


@pytest.fixture(scope="session")
def postgres(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A PostgreSQL server for the session (pgserver's bundled binaries)."""
    try:
        with warnings.catch_warnings():  # platformdirs: no XDG_RUNTIME_DIR on a bare machine
            warnings.simplefilter("ignore")
            import pgserver

            server = pgserver.get_server(tmp_path_factory.mktemp("postgres"),
                                         cleanup_mode="stop")
    except Exception as err:  # only when this machine cannot run it: said loudly
        pytest.skip(f"POSTGRESQL NOT TESTED: pgserver could not start PostgreSQL ({err!r})")
    yield server
    server.cleanup()


def postgres_url(server: Any, database: str) -> str:
    """A SQLAlchemy URL (psycopg 3) for one database of the server."""
    return server.get_uri(database).replace("postgresql://", "postgresql+psycopg://", 1)


def new_database(server: Any) -> str:
    """A fresh, empty database on the server; its SQLAlchemy URL."""
    name = f"archive_{uuid.uuid4().hex[:12]}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        server.psql(f"CREATE DATABASE {name};")
        return postgres_url(server, name)


@pytest.fixture(params=BACKENDS)
def archive_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'archive.sqlite3'}"
    return new_database(request.getfixturevalue("postgres"))


@pytest.fixture
def config(config: Config, archive_url: str, monkeypatch: pytest.MonkeyPatch) -> Config:
    """The suite's `config` with the archive at `archive_url` (worker code reads it too)."""
    monkeypatch.setenv("PARLEY_ARCHIVE_URL", archive_url)
    config.ARCHIVE_URL = archive_url
    return config
