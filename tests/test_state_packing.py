"""A state's stored form (service/storage/state_packing.py): zstd from `PACK_MIN` bytes on,
earlier forms still read, and one compression context per thread."""

from __future__ import annotations

import base64
import threading
import zlib

from parley_protocol.signing import dump_state

from engines.registry import get_engine
from service.storage.state_packing import MARK, PACK_MIN, ZLIB_MARK, pack_state, unpack_state
from tests.engines.playout import random_playout


def _stratego_state(seed: int = 1) -> str:
    """The canonical JSON of the last state of a random Stratego game (about 9 KB)."""
    return dump_state(random_playout(get_engine("stratego"), {}, 2, seed).state)


def test_a_large_state_is_packed_with_zstd_and_read_back() -> None:
    state_json = _stratego_state()
    stored = pack_state(state_json)
    assert stored[0] == MARK
    assert len(stored) < len(state_json) / 3
    assert base64.b64decode(stored[1:])[:4] == b"\x28\xb5\x2f\xfd"  # a zstd frame
    assert unpack_state(stored) == state_json


def test_a_small_state_is_kept_as_it_is() -> None:
    small = '{"board":{},"n":1}'
    assert len(small) < PACK_MIN
    assert pack_state(small) == small
    assert unpack_state(small) == small


def test_states_of_earlier_versions_are_read() -> None:
    state_json = _stratego_state(2)
    zlib_packed = ZLIB_MARK + base64.b64encode(zlib.compress(state_json.encode(), 2)).decode()
    assert unpack_state(zlib_packed) == state_json  # packed before zstd
    assert unpack_state(state_json) == state_json  # stored before packing
    assert unpack_state(None) is None and unpack_state("") == ""


def test_threads_packing_at_once_each_get_their_own_state_back() -> None:
    states = [_stratego_state(seed) for seed in range(8)]
    failures: list[str] = []

    def pack_many(state_json: str) -> None:
        for _ in range(200):
            if unpack_state(pack_state(state_json)) != state_json:
                failures.append(state_json[:40])
                return

    threads = [threading.Thread(target=pack_many, args=(s,)) for s in states]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures
