"""`envelope.conforms`, the move POST's shortcut past marshmallow, accepts only what
EnvelopeSchema accepts, and accepts the envelopes clients actually send."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from service.domain.envelope import EnvelopeSchema, conforms
from tests.players import TestPlayer

SCHEMA = EnvelopeSchema()
PLAYER = TestPlayer("shape")
PLAYER.key_id = "k_0123456789abcdef"  # as registered

VALID = PLAYER.envelope("g_0123456789ab", 1, 42, {"type": "move", "from": "a4", "to": "a5"})

#: values a field may be replaced with: wrong types, edge lengths, near-base64url strings
ODD = st.one_of(
    st.none(), st.booleans(), st.integers(-2**60, 2**60), st.floats(allow_nan=False),
    st.text(max_size=200), st.text(alphabet="AZaz09_-=+/ \n", max_size=200),
    st.sampled_from(["", "a", "A" * 64, "A" * 65, "A" * 86, "A" * 87, "A" * 128, "A" * 129,
                     "A" * 21, "A" * 22, "A" * 23, "A" * 86 + "\n", 63, 64, 0, -1, 2**53 - 1,
                     2**53, 1.0, True]),
    st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=5), st.integers(),
                                                         max_size=3))

FIELDS = [("key_id",), ("signature",), ("payload",), ("payload", "game"), ("payload", "seat"),
          ("payload", "step"), ("payload", "move"), ("payload", "nonce"),
          ("payload", "issued_at")]


def _mutate(envelope: dict[str, Any], path: tuple[str, ...], how: str, value: Any) -> None:
    target = envelope
    for key in path[:-1]:
        target = target.get(key)
        if not isinstance(target, dict):
            return
    if how == "drop":
        target.pop(path[-1], None)
    elif how == "extra":
        target[f"{path[-1]}_x"] = value
    else:
        target[path[-1]] = value


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(FIELDS), st.sampled_from(["set", "drop", "extra"]),
                          ODD), min_size=1, max_size=3))
def test_what_the_shortcut_accepts_the_schema_accepts(mutations) -> None:
    envelope = copy.deepcopy(VALID)
    for path, how, value in mutations:
        _mutate(envelope, path, how, value)
    if conforms(envelope):
        assert SCHEMA.validate(envelope) == {}, envelope


#: every field's edges: lengths and ranges at and past the schema's limits, other types
EDGES = [None, True, False, 0, -1, 1, 63, 64, 2**53 - 1, 2**53, 1.0, 0.5, "", "a", "a" * 64,
         "a" * 65, "A" * 21, "A" * 22, "A" * 23, "A" * 85, "A" * 86, "A" * 87, "A" * 128,
         "A" * 129, "A" * 130, "A" * 86 + "\n", "A" * 86 + "=", "A" * 85 + "+", [], {}, {"a": 1},
         [1], "A" * 22 + "\n"]


def test_no_edge_of_any_field_slips_through() -> None:
    for path in FIELDS:
        for value in EDGES:
            for how in ("set", "drop", "extra"):
                envelope = copy.deepcopy(VALID)
                _mutate(envelope, path, how, value)
                if conforms(envelope):
                    assert SCHEMA.validate(envelope) == {}, (path, how, value)


def test_real_envelopes_take_the_shortcut() -> None:
    for seat, step in ((0, 0), (63, 2**53 - 1), (5, 17)):
        envelope = PLAYER.envelope("g_" + "f" * 12, seat, step, {"type": "setup"})
        assert conforms(envelope) and SCHEMA.validate(envelope) == {}
    assert not conforms([VALID]) and not conforms({**VALID, "extra": 1})
    assert not conforms({**VALID, "payload": {**VALID["payload"], "seat": True}})
    assert not conforms({**VALID, "payload": {**VALID["payload"], "step": 1.0}})
