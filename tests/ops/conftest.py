"""The operations tests reuse the end-to-end system: real `parley web` and `parley worker`."""

from tests.e2e.conftest import server  # noqa: F401  (a fixture)
