"""A game's state as Redis keeps it: packed (zstd, then base64 after a `^`) from `PACK_MIN`
bytes of canonical JSON on, as is below.

Issue 34: a Stratego Original state is about 9.2-9.7 KB of JSON. It is read on every move
(the view, the accept's checks, the resolve) and written on every commit, so the packing is
a fast one. zstd at level 3 packs a mid-game state to 1.6 KB in about 30 us and unpacks it in
20 us, where zlib at level 2 (what was written until the tenth pass of issue 35) took 69 and
40 us for 1.9 KB (docs/performance.md, "Packed history"). Base64 keeps the value text, so the
store's decoding client and its pipelines read it like any other string. Readers get the JSON
back: a value starting with `~` is a zlib-packed state of an earlier version, read as before
(it is written packed anew by its game's next commit); one that starts with neither mark (a
state written before packing, or a small one) is JSON already.
"""

from __future__ import annotations

import base64
import threading
import zlib

import zstandard

#: what a packed state starts with (never the first character of JSON or of base64)
MARK = "^"
#: what a state packed by an earlier version starts with: zlib, read but no longer written
ZLIB_MARK = "~"
#: smaller states are kept as they are: packing them would save little and cost every move
PACK_MIN = 1024
LEVEL = 3

#: a compression context per thread (a context serves one call at a time; making one per
#: call costs a third of the packing)
_contexts = threading.local()


def pack_state(state_json: str) -> str:
    """The stored form of a state's canonical JSON."""
    if len(state_json) < PACK_MIN:
        return state_json
    compressor = getattr(_contexts, "compressor", None)
    if compressor is None:
        compressor = _contexts.compressor = zstandard.ZstdCompressor(level=LEVEL)
    return MARK + base64.b64encode(compressor.compress(state_json.encode())).decode()


def unpack_state(stored: str | None) -> str | None:
    """The canonical JSON of a stored state (None stays None: no state yet)."""
    decompress = _DECOMPRESS.get(stored[0]) if stored else None
    if decompress is None:
        return stored
    return decompress(base64.b64decode(stored[1:])).decode()


#: each mark's decompression: the packing written now, and the earlier version's
_DECOMPRESS = {MARK: zstandard.decompress, ZLIB_MARK: zlib.decompress}
