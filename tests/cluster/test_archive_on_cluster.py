"""The archive's tests (tests/archive/) with the store on a Redis Cluster: a game's copy and
swap are scripts on its slot, the indexes are forgotten with single-key commands."""

from tests.archive.test_crash_windows import (  # noqa: F401  (collected here, on the cluster)
    test_a_crash_after_the_copy_leaves_the_game_whole,
    test_a_crash_after_the_swap_is_finished_by_the_next_run,
)
from tests.archive.test_listing import test_pages_are_the_same_when_games_move  # noqa: F401
from tests.archive.test_moving import (  # noqa: F401
    test_the_start_up_scan_marks_finished_games_never_marked,
    test_the_workers_leave_a_moved_game_alone,
)
from tests.archive.test_same_answers import (  # noqa: F401
    test_every_read_is_the_same_before_and_after_the_move,
)
