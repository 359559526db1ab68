"""The crash soak (`python -m tests.soak --minutes N`, `make soak`); see docs/testing.md."""
