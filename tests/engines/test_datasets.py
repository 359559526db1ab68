"""Pinned data sets (contract v2 point 9): every shipped data file keeps its bytes forever.

A finished game names its data set in its options and replays with it, so a shipped file must
never change: its SHA-256 is pinned in `data_digests.json` beside this file. New data is a new
file under a new name; `python -m tests.engines.test_datasets` pins files not yet pinned (it never
rewrites a pinned digest).
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

from engines.contract import IllegalMove
from engines.datasets import DataSets

ROOT = Path(__file__).resolve().parents[2]
PINS = Path(__file__).with_name("data_digests.json")


def shipped() -> dict[str, str]:
    """Every data file under `engines/*/data/` (at any depth) -> its SHA-256."""
    return {p.relative_to(ROOT).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted((ROOT / "engines").glob("**/data/*.json"))}


def test_every_shipped_data_file_is_pinned_and_unchanged() -> None:
    pins = json.loads(PINS.read_text("utf-8"))
    files = shipped()
    for path, digest in pins.items():
        assert path in files, f"{path} was pinned and is gone: a finished game may need it"
        assert files[path] == digest, (
            f"{path} changed: a shipped data set never changes (games played with it must "
            f"replay); add the new data as a new file under a new name")
    unpinned = sorted(set(files) - set(pins))
    assert not unpinned, f"pin new data files with `python -m tests.engines.test_datasets`: " \
                         f"{unpinned}"


def _sets(folder: Path) -> DataSets[dict]:
    def parse(raw: object) -> dict:
        if not isinstance(raw, dict) or "cards" not in raw:
            raise ValueError("a set has a 'cards' list")
        return raw
    return DataSets(folder, "house-1", parse)


def test_a_set_is_loaded_by_name_and_a_new_one_leaves_it_alone(tmp_path: Path) -> None:
    (tmp_path / "house-1.json").write_text('{"cards": [1, 2]}')
    sets = _sets(tmp_path)
    assert sets.option("cards").default == "house-1"
    assert sets.load("house-1") == {"cards": [1, 2]}
    (tmp_path / "printed-1.json").write_text('{"cards": [3]}')
    later = _sets(tmp_path)
    assert later.names == ("house-1", "printed-1")
    assert later.load("house-1") == {"cards": [1, 2]}
    assert later.load("printed-1") == {"cards": [3]}


@pytest.mark.parametrize("name", ["nope", "../house-1", "House-1", 3])
def test_an_unknown_set_is_invalid_options(tmp_path: Path, name: object) -> None:
    (tmp_path / "house-1.json").write_text('{"cards": []}')
    with pytest.raises(IllegalMove) as err:
        _sets(tmp_path).load(name)  # type: ignore[arg-type]
    assert err.value.code == "invalid_options"


def test_a_bad_file_is_invalid_options_naming_the_problem(tmp_path: Path) -> None:
    (tmp_path / "house-1.json").write_text('{"tiles": []}')
    with pytest.raises(IllegalMove) as err:
        _sets(tmp_path).load("house-1")
    assert err.value.code == "invalid_options" and "'cards'" in err.value.message


if __name__ == "__main__":
    pins = json.loads(PINS.read_text("utf-8")) if PINS.exists() else {}
    added = {p: d for p, d in shipped().items() if p not in pins}
    PINS.write_text(json.dumps({**pins, **added}, indent=1, sort_keys=True) + "\n", "utf-8")
    print(f"pinned {len(added)} new file(s): {sorted(added)}", file=sys.stderr)
