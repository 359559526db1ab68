"""Whole games through real processes with the store on a Redis Cluster: a Duel played to its
end and verified, the live feed and a long poll (feeds on the queue's Redis, commits announced
from the cluster), and a deadline's reminder and forfeit with mail and webhooks."""

from tests.e2e.test_deadlines import (  # noqa: F401  (collected here, on the cluster)
    test_reminder_then_forfeit_survive_a_killed_worker,
)
from tests.e2e.test_live import (  # noqa: F401
    test_a_long_poll_answers_when_the_game_moves,
    test_a_players_feed_shows_their_games_as_their_seat_sees_them,
)
from tests.e2e.test_stratego_game import test_whole_duel_game_then_audit  # noqa: F401
from tests.notify.conftest import notify_env, receiver, smtp  # noqa: F401  (fixtures)
