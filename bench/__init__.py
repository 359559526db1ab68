"""Parley's benchmarks (issue 11): `python -m bench` runs them all and prints one table.

Each benchmark also runs alone (`python -m bench.engines`, `bench.flat`, `bench.accept`,
`bench.e2e`, `bench.memory`); `--quick` keeps a run short. Benchmarks are not tests: nothing
here asserts, and nothing in the test suite depends on a machine's speed. The commands, what
each one measures and the figures last measured are in docs/performance.md.
"""
