"""A game's state as Redis keeps it: packed (zlib, then base64 after a `~`) from `PACK_MIN`
bytes of canonical JSON on, as is below.

Issue 34: a Stratego Original state is about 9.7 KB of JSON and 2.9 KB packed. It is read on
every move (the view, the accept's checks, the resolve) and written on every commit, so the
level is one of zlib's fast ones (level 2 packs 4% smaller than level 1 in the same time):
packing costs about 30 us and unpacking 20 us, against 70 us to parse the JSON
(docs/performance.md). Base64 keeps the value text, so the store's decoding client and its
pipelines read it like any other string. Readers get the JSON back; a value that does not
start with the mark (a state written before packing, or a small one) is JSON already.
"""

from __future__ import annotations

import base64
import zlib

#: what a packed state starts with (never the first character of JSON or of base64)
MARK = "~"
#: smaller states are kept as they are: packing them would save little and cost every move
PACK_MIN = 1024
LEVEL = 2


def pack_state(state_json: str) -> str:
    """The stored form of a state's canonical JSON."""
    if len(state_json) < PACK_MIN:
        return state_json
    return MARK + base64.b64encode(zlib.compress(state_json.encode(), LEVEL)).decode()


def unpack_state(stored: str | None) -> str | None:
    """The canonical JSON of a stored state (None stays None: no state yet)."""
    if not stored or not stored.startswith(MARK):
        return stored
    return zlib.decompress(base64.b64decode(stored[1:])).decode()
