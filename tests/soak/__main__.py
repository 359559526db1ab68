"""`python -m tests.soak --minutes N`: the crash soak; prints its figures, exits 1 on a failure."""

from __future__ import annotations

import argparse
import signal
import sys

from tests.soak.soak import Options, run_soak


def _interrupt(_signum: int, _frame: object) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    defaults = Options()
    parser = argparse.ArgumentParser(prog="python -m tests.soak", description=__doc__)
    parser.add_argument("--minutes", type=float, default=defaults.minutes,
                        help="how long to play under chaos (default %(default)s)")
    parser.add_argument("--clients", type=int, default=defaults.concurrency,
                        help="concurrent client threads, one game each at a time")
    parser.add_argument("--workers", type=int, default=defaults.workers,
                        help="RQ worker processes")
    parser.add_argument("--max-games", type=int, default=defaults.max_games,
                        help="stop creating games after this many")
    parser.add_argument("--max-moves", type=int, default=defaults.max_moves,
                        help="moves per game at most before it is ended by resignation")
    parser.add_argument("--gap", type=float, nargs=2, default=defaults.chaos_gap,
                        metavar=("MIN", "MAX"), help="seconds between two kills")
    parser.add_argument("--recovery", type=float, default=defaults.recovery,
                        help="seconds every game gets to drain after the chaos")
    parser.add_argument("--seed", type=int, default=None, help="repeat a run's random choices")
    parser.add_argument("--cluster", action="store_true",
                        help="the game store on a Redis Cluster of three masters, whose nodes "
                             "the chaos kills too")
    parser.add_argument("--keep", action="store_true",
                        help="keep the data directory (logs, AOF) even when all is well")
    args = parser.parse_args(argv)
    opts = Options(minutes=args.minutes, concurrency=args.clients, workers=args.workers,
                   max_games=args.max_games, max_moves=args.max_moves,
                   chaos_gap=tuple(args.gap), recovery=args.recovery, seed=args.seed,
                   keep=args.keep, store_cluster=args.cluster)
    # a SIGTERM (timeout, CI) stops the soak like Ctrl-C: its processes are stopped first
    signal.signal(signal.SIGTERM, _interrupt)
    report = run_soak(opts)
    print(report.render(), flush=True)
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
