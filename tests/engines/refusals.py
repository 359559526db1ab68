"""One check shared by every engine's tests: an illegal move is refused by `check` and by
`apply` with the same code, and leaves the state exactly as it was (contract v2, point 3)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engines.contract import Engine, IllegalMove
from engines.rng import NoDraws


def assert_refused(engine: Engine, state: dict, seat: int, move: Any, code: str,
                   rng: Any = None) -> None:
    before = json.dumps(state, sort_keys=True)
    with pytest.raises(IllegalMove) as err:
        engine.check(state, seat, move)
    assert err.value.code == code, err.value
    with pytest.raises(IllegalMove) as err:
        engine.apply(state, seat, move, rng if rng is not None else NoDraws())
    assert err.value.code == code, err.value
    assert json.dumps(state, sort_keys=True) == before
