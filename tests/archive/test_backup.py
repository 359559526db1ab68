"""The backups of docs/operations.md "Archive": SQLite by its online backup, PostgreSQL by
pg_dump; restored, the archived games answer as before. A pointer whose archive row is lost
(an archive backup older than the Redis one) is reported by `parley fsck`."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import sqlalchemy as sa

from service.ops.fsck import check_game
from service.web.app import create_app
from tests.archive.conftest import new_database
from tests.archive.helpers import every_read, finished_duel
from workers.archiver import archive_game

#: docs/operations.md's SQLite backup, as written there (paths filled in)
SQLITE_BACKUP = ('python3 -c "import sqlite3; '
                 "sqlite3.connect('{live}').backup(sqlite3.connect('{copy}'))\"")


def _bin(name: str) -> str:
    from pgserver._commands import POSTGRES_BIN_PATH  # the bundled client programs

    return str(Path(POSTGRES_BIN_PATH) / name)


def _backup_and_restore(archive_url: str, tmp_path: Path, request: pytest.FixtureRequest
                        ) -> str:
    """Back the archive up while the server runs, restore it elsewhere; the restored URL."""
    url = sa.engine.make_url(archive_url)
    if url.get_backend_name() == "sqlite":
        copy = tmp_path / "backup.sqlite3"
        command = SQLITE_BACKUP.format(live=url.database, copy=copy)
        subprocess.run(shlex.split(command.replace("python3", sys.executable, 1)), check=True)
        restored = tmp_path / "restored" / "archive.sqlite3"
        restored.parent.mkdir()
        restored.write_bytes(copy.read_bytes())
        return f"sqlite:///{restored}"
    dump = tmp_path / "archive.dump"
    plain = url.set(drivername="postgresql").render_as_string(hide_password=False)
    subprocess.run([_bin("pg_dump"), "--format=custom", f"--file={dump}", plain], check=True)
    target = new_database(request.getfixturevalue("postgres"))
    plain_target = sa.engine.make_url(target).set(drivername="postgresql") \
        .render_as_string(hide_password=False)
    subprocess.run([_bin("pg_restore"), "--no-owner", f"--dbname={plain_target}", str(dump)],
                   check=True)
    return target


def test_a_restored_backup_answers_as_before(app, client, run_jobs, config, archive_url,
                                             tmp_path: Path, request, monkeypatch) -> None:
    store = app.extensions["parley_store"]
    game = finished_duel(client, run_jobs)
    assert archive_game(store, game.gid) == "ok"
    before = every_read(client, game)
    restored = _backup_and_restore(archive_url, tmp_path, request)
    monkeypatch.setenv("PARLEY_ARCHIVE_URL", restored)
    config.ARCHIVE_URL = restored
    again = create_app(config)
    again.config["TESTING"] = True
    assert again.extensions["parley_store"].archive.url == restored
    assert every_read(again.test_client(), game) == before
    assert check_game(again.extensions["parley_store"], game.gid).ok


def test_fsck_reports_a_pointer_without_its_archive_row(app, client, run_jobs, config,
                                                        tmp_path: Path, monkeypatch) -> None:
    store = app.extensions["parley_store"]
    game = finished_duel(client, run_jobs)
    assert archive_game(store, game.gid) == "ok"
    empty = f"sqlite:///{tmp_path / 'older' / 'archive.sqlite3'}"  # from before the move
    monkeypatch.setenv("PARLEY_ARCHIVE_URL", empty)
    config.ARCHIVE_URL = empty
    older = create_app(config)
    found = check_game(older.extensions["parley_store"], game.gid)
    assert not found.ok
    assert "archive has no record" in found.render()
    assert os.path.exists(tmp_path / "older" / "archive.sqlite3")


def test_a_sqlite_archive_writes_ahead(app, archive_url) -> None:
    """Readers (the web) neither wait for a writer (an archiver) nor block it."""
    archive = app.extensions["parley_store"].archive
    archive.count()  # first use: the tables
    with archive.engine.connect() as conn:
        mode = conn.exec_driver_sql("PRAGMA journal_mode").scalar() \
            if archive_url.startswith("sqlite") else "wal"
    assert mode == "wal"
