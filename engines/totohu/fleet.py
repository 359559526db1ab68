"""Fleet and outcome-matrix data: loading and validating a data file (rules/totohu.md §2.1, §2.2).

The fleet and the matrix are HOUSE DATA (the rulebook's tables were images), so they live in
`data/<id>.json` and the engine loads them by the `fleet_data` option; a replacement file needs no
code change. `parse_fleet` enforces every requirement of §2.2 "Data-file format" and rejects a bad
file with a `FleetDataError` naming the first problem found.

Encoding decisions (the spec's table writes "–" for a field a class does not have):
- `strength` is an int >= 1 for pirates and `null` for every other ship;
- slot counts a class does not have are 0: pirates have `deck` 0 and `anchors` 0, merchants
  `cannons` 0 and `anchors` 0, hunters `cannons` 0, `deck` 0 and `hold` 0;
- the file and every ship have exactly the listed keys (a typo must not pass silently);
- the file's `id` equals its file name (`data/<id>.json`), the value of the `fleet_data` option;
- the fleet has exactly 6 ships, since the die faces 1-6 must be distinct and all used (§2.1, §4.5).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).parent / "data"
DEFAULT_FLEET = "totohu-house-1"

PIRATE, MERCHANT, HUNTER = "pirate", "merchant", "hunter"
CLASSES = (PIRATE, MERCHANT, HUNTER)
EFFECTS = ("hit", "cannon", "barrel", "barrel2", "anchor", "none")
#: effect -> the one class whose row may hold it (§2.2: "cannon appears only on pirates, ...")
EFFECT_CLASS = {"cannon": PIRATE, "barrel": MERCHANT, "barrel2": MERCHANT, "anchor": HUNTER}
TOP_FIELDS = ("id", "fleet", "matrix")
SHIP_FIELDS = (
    "id", "name", "class", "strength", "holes", "cannons", "deck", "anchors", "hold", "die_face",
)
FLEET_SIZE = 6
HUNTER_ANCHORS = 7
#: a fleet data id is a file name in `data/`: no path separators, no dots
_ID_RE = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")
_SHIP_ID_RE = re.compile(r"[a-z0-9_]{1,16}")


class FleetDataError(ValueError):
    """A fleet data id that names no file, or a file that breaks §2.2 "Data-file format"."""


@dataclass(frozen=True)
class ShipType:
    """One ship of the fleet as the data file describes it (capacities, not state)."""

    id: str
    name: str
    cls: str
    strength: int | None
    holes: int
    cannons: int
    deck: int
    anchors: int
    hold: int
    die_face: int

    def as_json(self) -> dict[str, Any]:
        """The ship as it stands in the data file (for views: the data is public)."""
        return {
            "id": self.id, "name": self.name, "class": self.cls, "strength": self.strength,
            "holes": self.holes, "cannons": self.cannons, "deck": self.deck,
            "anchors": self.anchors, "hold": self.hold, "die_face": self.die_face,
        }


@dataclass(frozen=True)
class FleetData:
    """A validated data file: the 6 ship types (file order) and the outcome matrix."""

    id: str
    ships: tuple[ShipType, ...]
    by_id: Mapping[str, ShipType]
    #: matrix[row][col]: the effect on the row ship when it meets the column ship
    matrix: Mapping[str, Mapping[str, str]]
    #: ships in ascending die-face order (solo, §4.5)
    by_face: tuple[ShipType, ...]


@lru_cache(maxsize=16)
def load_fleet(fleet_id: str) -> FleetData:
    """The validated data file `data/<fleet_id>.json` (cached: the files are read-only data)."""
    if not isinstance(fleet_id, str) or not _ID_RE.fullmatch(fleet_id):
        raise FleetDataError(f"Fleet data id {fleet_id!r} is not a valid data file name.")
    path = DATA_DIR / f"{fleet_id}.json"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FleetDataError(f"Unknown fleet data {fleet_id!r}.") from None
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as err:
        raise FleetDataError(f"Fleet data {fleet_id!r} is not valid JSON: {err}.") from None
    return parse_fleet(raw, expected_id=fleet_id)


def parse_fleet(raw: Any, expected_id: str | None = None) -> FleetData:
    """Validate a decoded data file against §2.2 and build the `FleetData`."""
    _check_keys(raw, TOP_FIELDS, "The data file")
    if not isinstance(raw["id"], str) or not raw["id"]:
        raise FleetDataError("The data file's 'id' must be a non-empty string.")
    if expected_id is not None and raw["id"] != expected_id:
        raise FleetDataError(f"The data file's id {raw['id']!r} is not {expected_id!r}.")
    fleet = raw["fleet"]
    if not isinstance(fleet, list) or len(fleet) != FLEET_SIZE:
        raise FleetDataError(f"'fleet' must be a list of exactly {FLEET_SIZE} ships.")
    ships = tuple(_parse_ship(i, s) for i, s in enumerate(fleet))
    ids = [s.id for s in ships]
    if len(set(ids)) != FLEET_SIZE:
        raise FleetDataError(f"Ship ids must be distinct: {ids}.")
    faces = sorted(s.die_face for s in ships)
    if faces != list(range(1, FLEET_SIZE + 1)):
        raise FleetDataError(f"Die faces must be 1-6, each used once: {faces}.")
    by_id = {s.id: s for s in ships}
    matrix = _parse_matrix(raw["matrix"], by_id)
    return FleetData(
        id=raw["id"], ships=ships, by_id=by_id, matrix=matrix,
        by_face=tuple(sorted(ships, key=lambda s: s.die_face)),
    )


def _check_keys(obj: Any, fields: tuple[str, ...], what: str) -> None:
    if not isinstance(obj, dict):
        raise FleetDataError(f"{what} must be a JSON object.")
    missing = [f for f in fields if f not in obj]
    if missing:
        raise FleetDataError(f"{what} lacks {missing[0]!r}.")
    extra = sorted(set(obj) - set(fields))
    if extra:
        raise FleetDataError(f"{what} has an unknown key {extra[0]!r}.")


def _int(value: Any, what: str, lo: int, hi: int | None = None) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < lo or (
        hi is not None and value > hi
    ):
        bound = f"{lo}..{hi}" if hi is not None else f">= {lo}"
        raise FleetDataError(f"{what} must be an integer {bound}, not {value!r}.")
    return value


def _parse_ship(index: int, raw: Any) -> ShipType:
    """One fleet entry; capacities per class as the module docstring says (§2.2)."""
    what = f"Ship {index}"
    _check_keys(raw, SHIP_FIELDS, what)
    sid = raw["id"]
    if not isinstance(sid, str) or not _SHIP_ID_RE.fullmatch(sid):
        raise FleetDataError(f"{what}: 'id' must match [a-z0-9_]{{1,16}}, not {sid!r}.")
    what = f"Ship {sid!r}"
    if not isinstance(raw["name"], str) or not raw["name"]:
        raise FleetDataError(f"{what}: 'name' must be a non-empty string.")
    cls = raw["class"]
    if cls not in CLASSES:
        raise FleetDataError(f"{what}: 'class' must be one of {list(CLASSES)}, not {cls!r}.")
    holes = _int(raw["holes"], f"{what}: 'holes'", 1)
    die_face = _int(raw["die_face"], f"{what}: 'die_face'", 1, FLEET_SIZE)
    if cls == PIRATE:
        strength: int | None = _int(raw["strength"], f"{what}: 'strength'", 1)
        cannons = _int(raw["cannons"], f"{what}: 'cannons'", 1)
    else:
        if raw["strength"] is not None:
            raise FleetDataError(f"{what}: only pirates have a 'strength'; use null.")
        strength = None
        cannons = _int(raw["cannons"], f"{what}: 'cannons'", 0, 0)
    deck = _int(raw["deck"], f"{what}: 'deck'", *((1, None) if cls == MERCHANT else (0, 0)))
    if cls == HUNTER:
        anchors = _int(raw["anchors"], f"{what}: 'anchors'", HUNTER_ANCHORS, HUNTER_ANCHORS)
        hold = _int(raw["hold"], f"{what}: 'hold'", 0, 0)
    else:
        anchors = _int(raw["anchors"], f"{what}: 'anchors'", 0, 0)
        hold = _int(raw["hold"], f"{what}: 'hold'", 1, 1)
    return ShipType(sid, raw["name"], cls, strength, holes, cannons, deck, anchors, hold, die_face)


def _rulebook_cell(row: ShipType, col: ShipType) -> str | None:
    """The effect the rulebook fixes for a cell (classes A-D, §2.2), or None for a house cell."""
    if row.cls == PIRATE:
        if col.cls == MERCHANT:
            return "cannon"
        if col.cls == HUNTER:
            return "none"
        assert row.strength is not None and col.strength is not None
        return "cannon" if row.strength > col.strength else "hit"
    if col.cls == PIRATE:
        return "hit" if row.cls == MERCHANT else "anchor"
    return None


def _parse_matrix(raw: Any, by_id: Mapping[str, ShipType]) -> dict[str, dict[str, str]]:
    """All 36 cells, the rulebook's cells, the class restrictions and the no-idle-pair rule."""
    ids = tuple(by_id)
    _check_keys(raw, ids, "'matrix'")
    matrix: dict[str, dict[str, str]] = {}
    for r in ids:
        _check_keys(raw[r], ids, f"Matrix row {r!r}")
        row: dict[str, str] = {}
        for c in ids:
            effect = raw[r][c]
            where = f"Matrix cell {r!r} meets {c!r}"
            if effect not in EFFECTS:
                raise FleetDataError(f"{where}: {effect!r} is not one of {list(EFFECTS)}.")
            owner = EFFECT_CLASS.get(effect)
            if owner is not None and by_id[r].cls != owner:
                raise FleetDataError(f"{where}: {effect!r} is allowed only on a {owner}.")
            expected = _rulebook_cell(by_id[r], by_id[c])
            if expected is not None and effect != expected:
                raise FleetDataError(
                    f"{where}: the rulebook requires {expected!r}, not {effect!r}."
                )
            row[c] = effect
        matrix[r] = row
    for i, r in enumerate(ids):
        for c in ids[i:]:
            if matrix[r][c] == "none" and matrix[c][r] == "none":
                raise FleetDataError(
                    f"Matrix cells {r!r}/{c!r}: at least one must not be 'none' (termination, "
                    "§10.10)."
                )
    return matrix
