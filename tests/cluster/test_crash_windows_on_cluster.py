"""The crash-window tests (tests/soak/test_crash_windows.py) with the store on a Redis Cluster."""

from tests.soak.test_crash_windows import (  # noqa: F401  (collected here, on the cluster)
    test_a_repost_schedules_a_move_stored_just_before_a_crash,
    test_a_retried_join_starts_a_game_whose_start_was_lost,
    test_a_worker_start_finds_a_move_missing_from_the_pending_index,
    test_the_sweep_resolves_a_move_stored_just_before_a_crash,
)
