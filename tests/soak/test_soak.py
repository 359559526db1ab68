"""The crash soak, short: about twenty seconds of random games under kill -9 (docs/testing.md);
`make soak` is the long run."""

from __future__ import annotations

import io
import os

import pytest

from tests.soak.play import Ack, SoakGame
from tests.soak.soak import Options, Report, _count, run_soak


@pytest.mark.slow
def test_short_soak_loses_nothing_and_doubles_nothing() -> None:
    seed = int(os.environ["PARLEY_SOAK_SEED"]) if os.environ.get("PARLEY_SOAK_SEED") else None
    progress = io.StringIO()
    # 12 s of play with a kill every 0.5-1.5 s: each kind of kill at least once (the chaos goes
    # on past the play time until it has), then more at random
    report = run_soak(Options(minutes=0.2, concurrency=6, workers=3, chaos_gap=(0.5, 1.5),
                              recovery=90, seed=seed, progress_every=10), out=progress)
    print(progress.getvalue() + report.render())  # shown by pytest when the test fails
    assert report.failures() == [], report.render()
    # it really did something: moves under every kind of kill, and every game checked
    assert report.acknowledged >= 30
    assert report.applied + report.rejected == report.acknowledged
    assert report.applied > report.rejected
    assert all(report.restarts[kind] >= 1 for kind in ("worker", "web", "redis"))
    assert report.games >= 4 and not report.unverified


def _game(*acks: tuple[int, str]) -> SoakGame:
    game = SoakGame("g_test", "totohu", 2)
    for seq, digest in acks:
        game.acks[seq] = Ack(seq, digest, {}, f"/v1/games/g_test/moves/{seq}")
    return game


def test_the_check_counts_a_move_missing_changed_or_unresolved_as_lost() -> None:
    entries = [{"seq": 1, "digest": "a", "status": "applied"},
               {"seq": 2, "digest": "b", "status": "rejected", "code": "stale_step"},
               {"seq": 3, "digest": "c", "status": "queued"}]
    report = Report(seed=0)
    _count(_game((1, "a"), (2, "b"), (3, "c"), (4, "d")), entries, report)
    assert (report.applied, report.rejected, report.lost) == (1, 1, 2)  # 3 queued, 4 missing
    report = Report(seed=0)
    _count(_game((1, "x")), entries, report)  # another envelope under the acknowledged id
    assert report.lost == 1
    assert "1 acknowledged moves lost" in report.failures()


def test_a_500_fails_the_soak() -> None:
    """A Redis or a store node away answers 503; a 500 is a fault, even one a retry got past."""
    report = Report(seed=0, acknowledged=1)
    assert report.failures() == []
    report.client["http_500"] += 2
    assert report.failures() == ["2 answers were 500 (the web's log names each error); a Redis "
                                 "or a store node away must answer 503"]
