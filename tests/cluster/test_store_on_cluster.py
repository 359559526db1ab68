"""The game store's own operations on a Redis Cluster: scripts that a node lost are loaded
again, batches touch games on several nodes, and a played game passes fsck and the verifier."""

from __future__ import annotations

from typing import Any

import pytest
from parley_protocol.verify import verify_bundle
from redis.cluster import ClusterPipeline, RedisCluster

from service.ops.fsck import fsck
from service.storage.keys import game_key
from service.storage.store import same_server
from tests.api.helpers import new_game, play_out, post_move, view
from tests.api.test_batch import (  # noqa: F401  (collected here, on the cluster)
    games,
    test_a_batch_submits_moves_of_several_games_and_each_is_applied,
)
from tests.cluster.redis_cluster import LocalCluster


def test_the_store_is_the_cluster_and_the_feeds_are_beside_the_queue(app) -> None:
    store, queue = app.extensions["parley_store"], app.extensions["parley_queue"]
    assert isinstance(store.r, RedisCluster)
    assert store.inline_wake is None  # a script on the cluster cannot reach the queue's keys
    assert same_server(store.live, queue.connection)


def test_a_move_is_accepted_and_resolved_after_every_node_lost_its_scripts(
        app, client, run_jobs, redis_cluster: LocalCluster) -> None:
    gid, players = new_game(client, "stratego", {"army": "duel"})
    run_jobs()
    for i in range(redis_cluster.masters):  # a restarted or failed-over node has no scripts
        redis_cluster.node(i).script_flush()
    v = view(client, gid, players[0])
    resp = post_move(client, gid, players[0], 0, v["legal_moves"][0], step=v["step"])
    assert resp.status_code == 202, resp.get_json()
    run_jobs()
    assert client.get(resp.headers["Location"]).get_json()["status"] == "applied"


def test_a_game_played_to_its_end_passes_fsck_and_the_verifier(
        app, client, run_jobs, redis_cluster: LocalCluster) -> None:
    store = app.extensions["parley_store"]
    gid, players = new_game(client, "totohu")
    summary = play_out(client, run_jobs, gid, players, seed=3)
    assert summary["status"] == "finished"
    held = [redis_cluster.node(i).keys(game_key(gid, "*")) for i in range(redis_cluster.masters)]
    assert sorted(map(len, held))[:-1] == [0] * (redis_cluster.masters - 1)  # one node holds
    assert game_key(gid, "meta") in max(held, key=len)  # the whole game (its hash tag)
    [check] = fsck(store, [gid])
    assert check.ok, check.render()
    report = verify_bundle(client.get(f"/v1/games/{gid}/audit").get_json())
    assert report.ok, report.render()


def test_a_move_costs_the_store_two_round_trips_as_on_one_redis(
        app, client, run_jobs, redis_cluster: LocalCluster,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The context read and the append, each one pipeline (tests/api/test_hotpaths.py counts
    the same two on one Redis): a game's keys share a slot, so each pipeline goes to the
    game's node and at most one more (the key's record, the pending index), side by side; and
    no node is asked where a script's keys are (service/storage/cluster_client.py)."""
    gid, players = new_game(client, "stratego", {"army": "duel"})
    run_jobs()
    store = app.extensions["parley_store"]
    for seat in (0, 1):  # the setups: after them the game's wake is outstanding
        v = view(client, gid, players[seat])
        assert post_move(client, gid, players[seat], seat, v["legal_moves"][0],
                         step=v["step"]).status_code == 202
    trips: list[int] = []  # per round trip: the nodes it went to
    execute = ClusterPipeline.execute

    def counted_execute(pipe: ClusterPipeline, *args: Any, **kwargs: Any) -> Any:
        slots = {store.r.determine_slot(*c.args) for c in pipe._execution_strategy.command_queue}
        trips.append(len({store.r.nodes_manager.get_node_from_slot(s).name for s in slots}))
        return execute(pipe, *args, **kwargs)

    command = store.r.execute_command

    def counted_command(*args: Any, **kwargs: Any) -> Any:
        trips.append(1)
        return command(*args, **kwargs)

    monkeypatch.setattr(store.r, "execute_command", counted_command)
    monkeypatch.setattr(ClusterPipeline, "execute", counted_execute)
    v = view(client, gid, players[0])
    trips.clear()
    for i in range(redis_cluster.masters):
        redis_cluster.node(i).config_resetstat()
    # another setup than the one posted (the same move again would be that move, re-posted)
    resp = post_move(client, gid, players[0], 0, v["legal_moves"][1], step=v["step"])
    assert resp.status_code == 202, resp.get_json()
    assert len(trips) == 2 and max(trips) <= 2, trips
    sent = [redis_cluster.node(i).info("commandstats") for i in range(redis_cluster.masters)]
    assert sum(stats.get("cmdstat_evalsha", {}).get("calls", 0) for stats in sent) == 1
    assert not any("cmdstat_command" in stats for stats in sent), sent
