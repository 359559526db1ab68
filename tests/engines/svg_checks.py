"""What every engine's board picture must be (`render_svg`), checked the same way for each game.

A picture must parse as XML, weigh at most `engines.svg.MAX_BYTES`, carry a title and a
description, fetch nothing from elsewhere and run nothing, never speak of seats, and depend only
on what the view holds, not on the order its dicts were built in (the same view gives the same
bytes, so an ETag can name it).
"""

from __future__ import annotations

import json
import random
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Mapping
from typing import Any

from engines.svg import MAX_BYTES

NS = "{http://www.w3.org/2000/svg}"
#: anything that would load or run something from elsewhere
_FOREIGN = re.compile(r"<script|<image|<foreignObject|href=|url\(|@import|javascript:", re.I)

Render = Callable[[Mapping[str, Any], Any], str]


def reordered(value: Any, rnd: random.Random) -> Any:
    """The same JSON value with every dict's keys in a random order."""
    if isinstance(value, dict):
        keys = list(value)
        rnd.shuffle(keys)
        return {k: reordered(value[k], rnd) for k in keys}
    if isinstance(value, list):
        return [reordered(v, rnd) for v in value]
    return value


def assert_sound(render: Render, view: Mapping[str, Any], names: Any, seed: int = 0) -> str:
    """Render `view` and check the picture; returns it."""
    picture = render(view, names)
    assert len(picture.encode("utf-8")) <= MAX_BYTES, len(picture.encode("utf-8"))
    root = ET.fromstring(picture)
    assert root.tag == f"{NS}svg"
    title, desc = root.find(f"{NS}title"), root.find(f"{NS}desc")
    assert title is not None and (title.text or "").strip()
    assert desc is not None and (desc.text or "").strip()
    assert "seat" not in picture.lower()
    assert not _FOREIGN.search(picture), _FOREIGN.search(picture)
    assert picture.count("http") == 1  # the SVG namespace, nothing else
    # the same view built in another key order, as it reads back from stored JSON
    again = reordered(json.loads(json.dumps(view)), random.Random(seed))
    assert render(again, names) == picture, "the picture depends on dict order"
    return picture


def group(picture: str, gid: str) -> ET.Element:
    """The `<g id=...>` of a picture."""
    found = ET.fromstring(picture).find(f".//{NS}g[@id='{gid}']")
    assert found is not None, f"no group {gid!r}"
    return found


def texts(element: ET.Element, cls: str | None = None) -> list[str]:
    """Every text under `element` (of one class), in document order."""
    return ["".join(t.itertext()) for t in element.iter(f"{NS}text")
            if cls is None or t.get("class") == cls]


def count(element: ET.Element, tag: str, cls: str) -> int:
    """How many `tag` elements under `element` have exactly the class `cls`."""
    return sum(1 for e in element.iter(f"{NS}{tag}") if e.get("class") == cls)
