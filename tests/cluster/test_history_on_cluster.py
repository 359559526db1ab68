"""The history's packing (tests/test_history_segments.py) with the game store on a Redis
Cluster: the segments are read through the store's second, non-decoding cluster client."""

from __future__ import annotations

from redis.cluster import RedisCluster

from tests.test_history_segments import (  # noqa: F401  (collected here, on the cluster)
    test_a_finished_game_reads_the_same_packed_and_in_the_archive,
    test_a_packing_cut_short_after_its_segments_loses_and_doubles_nothing,
    test_a_running_game_reads_the_same_before_and_after_packing,
    test_history_is_packed_as_the_game_goes_and_a_packed_move_posted_again_gets_its_receipt,
)


def test_the_segments_are_read_through_a_cluster_client_that_does_not_decode(app) -> None:
    store = app.extensions["parley_store"]
    assert isinstance(store.raw, RedisCluster) and store.raw is not store.r
    assert store.raw.get_encoder().decode_responses is False
