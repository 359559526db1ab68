"""A game's applied history in compressed segments (issue 34): what a segment holds, and how
a read puts segments and the rest back together.

A live game's history is most of its memory, and almost all of it is read only by audits,
event pages and re-posts. So, `SEGMENT` at a time, applied move entries leave the `moves`
stream, events the `events` list and state hashes the `hashes` list for a zlib-compressed
segment, pushed onto the part's segment list (`SEGMENT_PARTS`: `moves:seg`, `events:seg`,
`hashes:seg`). Events are a list ("<event id> <[seq, step, event]>" items) rather than a
stream because Redis gives a stream's newest node 4 KB however few entries it holds; segments
are lists rather than a hash because a list packs its items into shared nodes, where a hash of
values over 64 bytes spends about 90 bytes on each. Segment k (counting from 1) holds

- of `moves`: entries (k-1)*SEGMENT+1 .. k*SEGMENT, each [seq, env, h, t] (`h`, the entry hash,
  is null where the chain gives it: SHA-256 of the previous entry's hash and the envelope's
  digest, docs/audit.md; the first entry of a segment always keeps it);
- of `events`: events (k-1)*SEGMENT+1 .. k*SEGMENT, as their list items;
- of `hashes`: items (k-1)*SEGMENT .. k*SEGMENT-1 ("<seq> <digest>").

The meta hash counts what is packed of each (`PACKED_FIELDS`, multiples of SEGMENT). A blob is
zlib (`LEVEL`) of the JSON array. SEGMENT is part of the stored format (reads locate a
segment by it), so changing it needs a migration.

The COMMIT script finds what is due (whole segments of what was there before that commit:
applied entries only, so a resolve can still read back the entries it just committed) and
returns how far; the store reads those entries (HISTORY_DUE), packs them here (`pack_args`)
and writes them with PACK_HISTORY: each segment first (unless it is there already), then the
count, then the packed entries go, all in one script, so a reader never misses an entry and a
script run twice packs nothing twice.

A read takes segments and the rest in one script (HISTORY_READ, READ_RECORD) and merges them
here, into the same entries as before packing: an entry found in a segment and still in its
stream or list counts once.
"""

from __future__ import annotations

import base64
import zlib
from typing import Any

import orjson
from parley_protocol import signing

#: entries per segment (part of the stored format)
SEGMENT = 16
#: zlib's level: a segment is written once and read rarely
LEVEL = 6
#: the meta fields counting what is packed of moves, events and hashes
PACKED_FIELDS = ("packed_moves", "packed_events", "packed_hashes")
#: the game part holding each part's segments
SEGMENT_PARTS = {"moves": "moves:seg", "events": "events:seg", "hashes": "hashes:seg"}
#: the fields of a move-stream entry, in their order (ACCEPT_MOVE)
_MOVE_FIELDS = ["env", "h", "t"]

#: a stream entry as the store's readers take it: (id, fields)
StreamEntry = tuple[str, dict[str, str]]


def b64_digest(hex_digest: str) -> str:
    """A digest as stored: base64url without padding."""
    return base64.urlsafe_b64encode(bytes.fromhex(hex_digest)).rstrip(b"=").decode()


def hashes_item(seq: int, digest_hex: str) -> str:
    """An item of a game's `hashes` list as stored: "<seq> <state digest, base64url>"."""
    return f"{seq} {b64_digest(digest_hex)}"


def hex_digest(b64: str) -> str:
    """A stored digest as readers get it: hex."""
    return base64.urlsafe_b64decode(b64 + "=" * (-len(b64) % 4)).hex()


def segment_index(number: int) -> int:
    """Where in its segment list the segment holding move (or event) `number` is."""
    return (number - 1) // SEGMENT


def text(reply: Any) -> Any:
    """A reply of the store's non-decoding client as the decoding one gives it (nested)."""
    if isinstance(reply, bytes):
        return reply.decode()
    if isinstance(reply, list):
        return [text(item) for item in reply]
    return reply


def pairs(flat: list[str]) -> dict[str, str]:
    return dict(zip(flat[::2], flat[1::2], strict=True))


def _compress(items: list[Any]) -> bytes:
    return zlib.compress(orjson.dumps(items), LEVEL)


def _expand(blob: bytes) -> list[Any]:
    return orjson.loads(zlib.decompress(blob))


def _chained(previous: str, env: str) -> str:
    """The stored hash (base64url) that follows `previous` (stored) for envelope `env`."""
    digest = signing.sha256_hex(env.encode("utf-8"))
    return b64_digest(signing.chain_hash(hex_digest(previous), digest))


# ---- packing: HISTORY_DUE's reply -> PACK_HISTORY's arguments -------------------------------

def pack_args(due: list[Any]) -> list[Any]:
    """PACK_HISTORY's arguments for HISTORY_DUE's reply [move entries, event items, hash items,
    moves packed, events packed, hashes packed]: the segment size, then for moves, events and
    hashes what was packed before and how many segments follow, then the segments."""
    moves, events, hashes, *packed = due
    m = _move_segments(moves, int(packed[0]))
    e, h = _item_segments(events), _item_segments(hashes)
    return [SEGMENT, packed[0], len(m), packed[1], len(e), packed[2], len(h), *m, *e, *h]


def _item_segments(items: list[str]) -> list[bytes]:
    return [_compress(items[i:i + SEGMENT]) for i in range(0, len(items) - SEGMENT + 1, SEGMENT)]


def _move_segments(raw: list[Any], packed: int) -> list[bytes]:
    """Whole segments of move entries (XRANGE) numbered from `packed` + 1 on; none from a gap
    or an entry of other fields on (damage for fsck to report, never to be renumbered)."""
    out = []
    for start in range(0, len(raw) - SEGMENT + 1, SEGMENT):
        rows = []
        for n, (eid, flat) in enumerate(raw[start:start + SEGMENT]):
            if eid != f"{packed + start + n + 1}-0" or flat[::2] != _MOVE_FIELDS:
                return out
            env, h, t = flat[1::2]
            chains = bool(rows) and h == _chained(rows[-1][4], env)
            rows.append([packed + start + n + 1, env, None if chains else h, t, h])
        out.append(_compress([row[:4] for row in rows]))
    return out


# ---- reading: segments, then what is still in the stream or list ----------------------------

def _moves_of(blob: bytes) -> list[StreamEntry]:
    out: list[StreamEntry] = []
    for seq, env, h, t in _expand(blob):
        h = h if h is not None else _chained(out[-1][1]["h"], env)
        out.append((f"{seq}-0", {"env": env, "h": h, "t": t}))
    return out


def _events_of(items: list[str]) -> list[StreamEntry]:
    return [(f"{n}-0", {"e": e}) for n, e in (item.split(" ", 1) for item in items)]


def merged_moves(blobs: list[bytes], rest: list[Any]) -> list[StreamEntry]:
    """The entries of the move segments, then those of the stream (a raw XRANGE from a script)
    past them: (id, fields) each, once, in order."""
    return _merged([entry for blob in blobs for entry in _moves_of(blob)],
                   [(eid, pairs(flat)) for eid, flat in text(rest)])


def merged_events(blobs: list[bytes], rest: list[Any]) -> list[StreamEntry]:
    """The events of the segments, then those of the list past them, as (id, {"e": ...}) in
    order. `rest` may be a raw XRANGE too: a game's `events` was a stream before packing, and
    stays one until its next commit makes it a list (COMMIT)."""
    tail = text(rest)
    later = (_events_of(tail) if all(isinstance(item, str) for item in tail)
             else [(eid, pairs(flat)) for eid, flat in tail])
    return _merged([entry for blob in blobs for entry in _events_of(_expand(blob))], later)


def merged_hashes(blobs: list[bytes], rest: list[Any]) -> list[str]:
    """The `hashes` items of the segments, then those of the list past them, each once."""
    out = [item for blob in blobs for item in _expand(blob)]
    last = _number(out[-1], " ") if out else -1
    return out + [item for item in text(rest) if _number(item, " ") > last]


def _merged(packed: list[StreamEntry], later: list[StreamEntry]) -> list[StreamEntry]:
    last = _number(packed[-1][0], "-") if packed else 0
    return packed + [entry for entry in later if _number(entry[0], "-") > last]


def _number(item: str, sep: str) -> int:
    return int(item.split(sep, 1)[0])
