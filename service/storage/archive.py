"""The archive of finished games: SQLAlchemy Core on SQLite (the default) or PostgreSQL.

Redis holds what is played; a finished game, once its notices are out, moves here
(docs/operations.md "Archive"), so that Redis grows with the games being played and not with
history. Two tables:

- `archived_games`: one row per game: its record (`service.storage.game_records.GameRecord`)
  as canonical JSON compressed with zlib, the SHA-256 of that JSON (`digest`), and beside it
  the meta hash as JSON (summaries and lists need no record) and when it finished.
- `archived_players`: (player, game) for every player whose list of games names it; a
  player's archived games are read from it in game id order, a page at a time.

Writing a game is an upsert keyed by its id, with its players' rows, in one transaction:
copying a game twice (a crash between the copy and the swap in Redis, two archivers at once)
leaves one row, the same. `holds` checks a copy by decompressing it and comparing digests
before Redis lets the game go. The URL is PARLEY_ARCHIVE_URL (`sqlite:///...` or
`postgresql+psycopg://...`); tables are created on first use.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
import weakref
import zlib
from functools import lru_cache, partial
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from service.storage.game_records import GameRecord
from service.storage.store import Store, iso

metadata = sa.MetaData()

GAMES = sa.Table(
    "archived_games", metadata,
    sa.Column("gid", sa.String(64), primary_key=True),
    sa.Column("ruleset", sa.String(64), nullable=False),
    sa.Column("finished_at", sa.String(32), nullable=False),
    sa.Column("archived_at", sa.String(32), nullable=False),
    sa.Column("meta", sa.Text, nullable=False),
    sa.Column("digest", sa.String(64), nullable=False),
    sa.Column("record", sa.LargeBinary, nullable=False),
)

PLAYERS = sa.Table(
    "archived_players", metadata,
    sa.Column("player", sa.String(64), primary_key=True),
    sa.Column("gid", sa.String(64), primary_key=True),
)

#: the databases whose upsert (`ON CONFLICT`) this module speaks
DIALECTS = ("sqlite", "postgresql")


class ArchiveMissing(RuntimeError):
    """A game's pointer says it is archived, but there is no archive or no row for it (an
    archive restored from a backup older than the games it should hold)."""


#: what another process making the same tables at the same moment makes this one meet
FIRST_USE_RACES = ("already exists", "duplicate key", "database is locked")


class Archive:
    """One archive database; safe to share between threads, and across a fork."""

    def __init__(self, url: str) -> None:
        self.url = url
        parsed = sa.engine.make_url(url)
        if parsed.get_backend_name() not in DIALECTS:
            raise ValueError(f"PARLEY_ARCHIVE_URL: {parsed.get_backend_name()!r} is not one "
                             f"of {list(DIALECTS)}")
        options: dict[str, Any] = {"pool_pre_ping": True}
        if parsed.get_backend_name() == "sqlite":
            if parsed.database:
                Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
            options["connect_args"] = {"timeout": 30}  # wait for another process's write
        self.engine: Engine = sa.create_engine(url, **options)
        if parsed.get_backend_name() == "sqlite":
            sa.event.listen(self.engine, "connect", _sqlite_wal)
        # a forked child (a web worker, RQ's forking worker) opens connections of its own
        os.register_at_fork(after_in_child=partial(_forget_connections,
                                                   weakref.ref(self.engine)))
        self._ready = False
        self._lock = threading.Lock()

    def _connect(self) -> Engine:
        if not self._ready:
            with self._lock:
                if not self._ready:
                    self._create_tables()
                    self._ready = True
        return self.engine

    def _create_tables(self) -> None:
        """The tables, made by whichever process first needs them. Two processes starting on
        a new archive (a web process and a worker) may both find a table missing and both
        create it; the second's "already exists" means the first did, so it looks again (as
        after a new SQLite file's "locked", met while another process turns it to WAL)."""
        for attempt in range(5):
            try:
                metadata.create_all(self.engine)
                return
            except (sa.exc.OperationalError, sa.exc.ProgrammingError,
                    sa.exc.IntegrityError) as err:  # SQLite's, and PostgreSQL's two forms
                if not any(w in str(err) for w in FIRST_USE_RACES) or attempt == 4:
                    raise
                time.sleep(0.05 * (attempt + 1))

    # ---- writing ---------------------------------------------------------------------------

    def put(self, record: GameRecord) -> str:
        """Store the game's record and its players' rows (an upsert: again is harmless);
        returns the record's digest."""
        meta = record.parts["meta"]
        digest = record.digest()
        row = {"gid": record.gid, "ruleset": meta["ruleset"],
               "finished_at": meta.get("finished_at", ""), "archived_at": iso(int(time.time())),
               "meta": json.dumps(meta, sort_keys=True), "digest": digest,
               "record": record.compressed()}
        with self._connect().begin() as conn:
            _upsert(conn, GAMES, [row], ["gid"], update=[c for c in row if c != "gid"])
            players = [{"player": pid, "gid": record.gid} for pid in record.players()]
            if players:
                _upsert(conn, PLAYERS, players, ["player", "gid"], update=[])
        return digest

    # ---- reading ---------------------------------------------------------------------------

    def holds(self, gid: str, digest: str) -> bool:
        """Whether the archive holds exactly the record with this digest (decompressed and
        hashed again, not only the digest column)."""
        with self._connect().connect() as conn:
            row = conn.execute(sa.select(GAMES.c.digest, GAMES.c.record)
                               .where(GAMES.c.gid == gid)).first()
        return (row is not None and row.digest == digest
                and hashlib.sha256(zlib.decompress(row.record)).hexdigest() == digest)

    def record(self, gid: str) -> GameRecord | None:
        with self._connect().connect() as conn:
            blob = conn.execute(sa.select(GAMES.c.record).where(GAMES.c.gid == gid)).scalar()
        return GameRecord.from_compressed(blob) if blob is not None else None

    def meta(self, gid: str) -> dict[str, str] | None:
        with self._connect().connect() as conn:
            raw = conn.execute(sa.select(GAMES.c.meta).where(GAMES.c.gid == gid)).scalar()
        return json.loads(raw) if raw is not None else None

    def player_games(self, pid: str, after: str | None, count: int
                     ) -> list[tuple[str, dict[str, str]]]:
        """Up to `count` of the player's archived games after the id `after`, in id order:
        (id, meta) each."""
        query = (sa.select(GAMES.c.gid, GAMES.c.meta)
                 .join(PLAYERS, PLAYERS.c.gid == GAMES.c.gid)
                 .where(PLAYERS.c.player == pid)
                 .order_by(PLAYERS.c.gid).limit(count))
        if after:
            query = query.where(PLAYERS.c.gid > after)
        with self._connect().connect() as conn:
            return [(gid, json.loads(meta)) for gid, meta in conn.execute(query)]

    def count(self) -> int:
        with self._connect().connect() as conn:
            return conn.execute(sa.select(sa.func.count()).select_from(GAMES)).scalar_one()

    def stored_bytes(self, gid: str) -> int:
        """The compressed record's size (what one game costs the archive, beside its row)."""
        with self._connect().connect() as conn:
            size = conn.execute(sa.select(sa.func.length(GAMES.c.record))
                                .where(GAMES.c.gid == gid)).scalar()
        return int(size or 0)


def _forget_connections(engine: weakref.ref[Engine]) -> None:
    """In a forked child: leave the parent's pooled connections to the parent."""
    alive = engine()
    if alive is not None:
        alive.dispose(close=False)


def _sqlite_wal(dbapi_connection: Any, _record: Any) -> None:
    """WAL: readers (the web) do not wait for a writer (an archiver) nor block it."""
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.close()


def _upsert(conn: Connection, table: sa.Table, rows: list[dict[str, Any]], keys: list[str],
            update: list[str]) -> None:
    """INSERT ... ON CONFLICT (keys) DO UPDATE (the `update` columns) or DO NOTHING."""
    if conn.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    else:
        from sqlalchemy.dialects.sqlite import insert
    stmt = insert(table).values(rows)
    if update:
        stmt = stmt.on_conflict_do_update(index_elements=keys,
                                          set_={c: stmt.excluded[c] for c in update})
    else:
        stmt = stmt.on_conflict_do_nothing(index_elements=keys)
    conn.execute(stmt)


@lru_cache(maxsize=8)
def open_archive(url: str) -> Archive:
    """The archive at `url`, one per process and URL (its engine pools the connections)."""
    return Archive(url)


def archive_of(store: Store) -> Archive:
    """The store's archive (`configured.open_store` opens it)."""
    if store.archive is None:
        raise ArchiveMissing("this store has no archive (open it with configured.open_store)")
    return store.archive


def archived_record(store: Store, gid: str) -> GameRecord:
    """The archived game's record; its pointer is in Redis, so it must be here."""
    record = archive_of(store).record(gid)
    if record is None:
        raise ArchiveMissing(f"game {gid} is archived, but the archive has no record of it")
    return record


def archived_meta(store: Store, gid: str) -> dict[str, str]:
    """The archived game's meta hash, without reading its record."""
    meta = archive_of(store).meta(gid)
    if meta is None:
        raise ArchiveMissing(f"game {gid} is archived, but the archive has no record of it")
    return meta
