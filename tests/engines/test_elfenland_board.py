"""The Elfenland map data and the card code shared by the race and the war (spec §2)."""

from __future__ import annotations

import json

import pytest

from engines.contract import IllegalMove
from engines.elfenland import cards
from engines.elfenland.board import BOARDS, DATA_DIR, DEFAULT, board, parse_board


def test_shipped_map_has_the_spec_counts() -> None:
    b = board()
    assert len(b.towns) == 21 and b.start == "elvenhold"
    assert len(b.piece_towns) == 20 and b.start not in b.piece_towns
    assert len(b.card_towns) == 12 and "lapphalya" not in b.card_towns
    assert len(b.roads) == 48 and all(r.id == i for i, r in enumerate(b.roads))
    assert sum(b.card_counts.values()) == 72 and b.card_counts["raft"] == 12
    assert sum(b.counter_counts.values()) == 48
    assert b.colours[:2] == ("blue", "yellow") and b.obstacles == 6
    assert b.lake_of == {3: "Mare Magnum", 4: "Mare Magnum", 5: "Mare Magnum",
                         38: "Mare Nebulae", 39: "Mare Nebulae", 40: "Mare Nebulae"}
    assert b.roads_at["kihromah"] == (18,)
    assert set(b.roads_at["elvenhold"]) == {0, 1, 2, 3, 4, 41, 42}
    assert DEFAULT in BOARDS.names


def test_parallel_roads_and_river_directions() -> None:
    b = board()
    pairs: dict[frozenset, list[int]] = {}
    for r in b.roads:
        pairs.setdefault(frozenset((r.a, r.b)), []).append(r.id)
    assert sorted(v for v in pairs.values() if len(v) > 1) == [
        [0, 41], [5, 6], [13, 44], [15, 45], [29, 47], [36, 40], [37, 46]]
    assert b.road(44).a == "virst" and b.road(44).b == "ixara"
    assert b.road(41).other("beata") == "elvenhold"


def test_cost_reads_the_chart() -> None:
    b = board()
    # §11 S6: the Virst-Ixara river costs 1 raft downstream and 2 upstream
    assert cards.cost(b, b.road(44), "raft", "virst") == 1
    assert cards.cost(b, b.road(44), "raft", "ixara") == 2
    assert cards.cost(b, b.road(44), "dragon", "virst") is None
    assert cards.cost(b, b.road(4), "raft", "strykhaven") == 2  # lake, either way
    assert cards.cost(b, b.road(10), "troll_wagon", "feodor") == 2  # forest
    assert cards.cost(b, b.road(17), "unicorn", "albaran") == 2  # desert
    assert cards.cost(b, b.road(17), "giant_pig", "albaran") is None
    assert cards.cost(b, b.road(1), "raft", "elvenhold") is None
    assert cards.allowed(b, "magic_cloud", "mountain") and not cards.allowed(b, "unicorn", "plains")
    assert cards.caravan_cost(b, False) == 3 and cards.caravan_cost(b, True) == 4


def test_multisets_in_canonical_order() -> None:
    m = {"raft": 2, "giant_pig": 1, "dragon": 1}
    assert cards.expand(m) == ["giant_pig", "dragon", "raft", "raft"]
    assert [cards.nth(m, i) for i in range(4)] == cards.expand(m)
    cards.remove(m, "giant_pig")
    assert m == {"raft": 2, "dragon": 1}
    assert cards.contains(m, {"raft": 2}) and not cards.contains(m, {"raft": 3})
    subs = list(cards.sub_multisets({"raft": 2, "dragon": 1}, 2))
    assert subs == [{"dragon": 1, "raft": 1}, {"raft": 2}]
    assert cards.is_multiset({"raft": 1}) and not cards.is_multiset({"raft": 0})
    assert not cards.is_multiset({"boat": 1}) and not cards.is_multiset({"raft": True})


def test_a_bad_map_is_refused(tmp_path) -> None:
    data = json.loads((DATA_DIR / f"{DEFAULT}.json").read_text("utf-8"))
    data["roads"][3]["terrain"] = "swamp"
    with pytest.raises(ValueError, match="terrain"):
        parse_board(data)
    with pytest.raises(IllegalMove) as err:
        board("no-such-map")
    assert err.value.code == "invalid_options"
