"""service.ops.heap: the start-up heap frozen out of the collector's walks."""

import gc

from service.ops.heap import freeze_startup_heap


def test_what_lives_at_start_up_is_no_longer_walked_and_garbage_is_still_collected() -> None:
    kept = [[n] for n in range(1000)]  # what a process loads for its lifetime (lists: tracked)
    try:
        frozen = freeze_startup_heap()
        assert frozen >= len(kept)
        walked = {id(o) for o in gc.get_objects()}
        assert not any(id(item) in walked for item in kept)

        cycle: list = []
        cycle.append(cycle)  # made after the freeze: still the collector's
        probe = id(cycle)
        del cycle
        gc.collect()
        assert probe not in {id(o) for o in gc.get_objects()}
    finally:
        gc.unfreeze()
    assert id(kept[0]) in {id(o) for o in gc.get_objects()}
