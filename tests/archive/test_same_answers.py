"""A finished game answers every read with the same bytes before and after it moves to the
archive, and Redis keeps nothing of it but the pointer."""

from __future__ import annotations

from service.ops.fsck import check_game
from service.storage import notify_records
from service.storage.archive import archive_of
from service.storage.game_records import PACKED_PARTS, RECORD_PARTS, TRANSIENT_PARTS
from service.storage.keys import (
    GAME_PARTS,
    GAMES_KEY,
    game_key,
    mail_thread_key,
    player_games_key,
)
from tests.archive.helpers import every_read, finished_duel, game_keys
from workers.archiver import archive_game


def test_every_read_is_the_same_before_and_after_the_move(app, client, run_jobs) -> None:
    store = app.extensions["parley_store"]
    game = finished_duel(client, run_jobs)
    audit = client.get(f"/v1/games/{game.gid}/audit").get_json()
    assert any(e["status"] == "rejected" for e in audit["entries"])  # something of everything
    assert audit["draws"] and audit["state_hashes"] and audit["server_seed"]
    before = every_read(client, game)
    assert before["summary"][0] == 200 and before["late move /v1/games/" + game.gid +
                                                   "/moves"][0] == 409

    thread = mail_thread_key(game.players[0].id, game.gid)
    notify_records.join_thread(store, game.players[0].id, game.gid, "msg_1")  # a mail went out

    assert archive_game(store, game.gid) == "ok"

    assert game_keys(store, game.gid) == {game_key(game.gid, "meta"): "hash"}
    assert 0 < store.r.ttl(thread) <= 86400  # the mail thread expires a day later
    assert store.meta(game.gid) == {"status": "finished", "archived": "1"}
    assert store.r.zscore(GAMES_KEY, game.gid) is None
    for player in game.players.values():
        assert game.gid not in store.r.smembers(player_games_key(player.id))
    assert archive_of(store).count() == 1
    after = every_read(client, game)
    assert after.keys() == before.keys()
    differ = [name for name in before if before[name] != after[name]]
    assert differ == [], {name: (before[name], after[name]) for name in differ}
    assert check_game(store, game.gid).ok, check_game(store, game.gid).render()


def test_a_move_twice_is_harmless(app, client, run_jobs) -> None:
    store = app.extensions["parley_store"]
    game = finished_duel(client, run_jobs)
    assert archive_game(store, game.gid) == "ok"
    assert archive_game(store, game.gid) == "archived"
    assert archive_of(store).count() == 1
    assert client.get(f"/v1/games/{game.gid}").get_json()["status"] == "finished"


def test_a_game_not_finished_stays_in_redis(app, client, run_jobs) -> None:
    from tests.ops.helpers import play_duel

    store = app.extensions["parley_store"]
    gid, _ = play_duel(client, run_jobs, moves=2)
    keys = game_keys(store, gid)
    assert archive_game(store, gid) == "not_finished"
    assert game_keys(store, gid) == keys
    assert archive_of(store).count() == 0


def test_every_part_of_a_game_is_archived_or_transient() -> None:
    """A new part of a game must be decided on: kept in the record, or dropped at the move."""
    assert sorted(RECORD_PARTS + TRANSIENT_PARTS + PACKED_PARTS) == sorted(GAME_PARTS)
