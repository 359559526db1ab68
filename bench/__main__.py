"""`python -m bench` (`make bench`): every benchmark, then one table.

Options pass through to every benchmark: `--quick` (short runs), `--runs N`, and `--only
engines,flat,...` to pick some. A benchmark that fails is reported and the others still run;
the table then lacks its figures and the exit status is 1. Defaults take several minutes on a
2-core machine, most of it in `e2e` and the 100,000-game load of `memory`.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
import traceback

from bench.common import Figure, exit_on_sigterm, table

BENCHMARKS = ("engines", "boards", "flat", "accept", "e2e", "drain", "memory", "streams",
              "clocks")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="short runs (a smoke check)")
    p.add_argument("--runs", type=int, default=None, help="runs per figure (median reported)")
    p.add_argument("--only", default=",".join(BENCHMARKS), help="comma-separated benchmarks")
    args = p.parse_args(argv)
    exit_on_sigterm()
    names = args.only.split(",")
    for name in names:
        if name not in BENCHMARKS:
            p.error(f"unknown benchmark {name!r}; choose from {', '.join(BENCHMARKS)}")
    figures: list[Figure] = []
    failed: list[str] = []
    for name in names:
        t = time.monotonic()
        module = importlib.import_module(f"bench.{name}")
        print(f"bench: {name} ...", file=sys.stderr, flush=True)
        try:
            figures.extend(module.run(runs=args.runs, quick=args.quick))
        except Exception:  # the others' figures still count: report this one and go on
            traceback.print_exc()
            failed.append(name)
        print(f"bench: {name} took {time.monotonic() - t:.0f} s", file=sys.stderr, flush=True)
    print(table(figures))
    missed = [f.name for f in figures if f.met is False]
    if missed:
        print(f"\n{len(missed)} target(s) missed: see docs/performance.md for why.")
    if failed:
        print(f"\nfailed (traceback above, no figures): {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
