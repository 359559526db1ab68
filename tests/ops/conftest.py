"""The operations tests reuse the end-to-end system (real `parley web` and `parley worker`)
and the supervision tests' whole system on free ports."""

from tests.e2e.conftest import server  # noqa: F401  (a fixture)
from tests.ops.test_supervision import system  # noqa: F401  (a fixture)
