"""Data sets pinned by name: the house data files an engine loads (DESIGN.md "Contract v2" 9).

An engine whose components are data (card lists, ship cards, tile sequences, maps) keeps them in
`engines/<game>/data/<name>.json` and names the set by an option whose default is the shipped
set. The option's value is stored with the game, so a finished game replays and verifies with the
data it was played with. A shipped file never changes: its digest is pinned in
`tests/engines/data_digests.json`; new data is a new file under a new name.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import Any, Generic, TypeVar

from engines.contract import IllegalMove, OptionSpec

T = TypeVar("T")

#: a data set name is a file stem: no separators, no dots, so it can never name a path elsewhere
NAME_RE = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")


class DataSets(Generic[T]):
    """The data sets of one kind in one folder: names, the option that picks one, and loading.

    `parse` turns a file's JSON into the engine's own (frozen) value and raises `ValueError`
    naming the first problem; loading is cached per name, so a set is read once per process.
    """

    def __init__(self, folder: Path, default: str, parse: Callable[[Any], T],
                 prefix: str = "") -> None:
        self.folder = folder
        self.default = default
        self.prefix = prefix
        self._parse = parse
        self._loaded: dict[str, T] = {}

    @cached_property
    def names(self) -> tuple[str, ...]:
        """Every shipped set of this kind (files `<prefix>*.json`), sorted."""
        return tuple(sorted(p.stem for p in self.folder.glob(f"{self.prefix}*.json")
                            if NAME_RE.fullmatch(p.stem)))

    def option(self, description: str) -> OptionSpec:
        """The engine option naming the set: default the shipped set, choices every set."""
        return OptionSpec(self.default, self.names, description)

    def load(self, name: str) -> T:
        """The parsed set; `invalid_options` for a name that is no set or a file that is bad."""
        value = self._loaded.get(name)
        if value is not None:
            return value
        if not isinstance(name, str) or name not in self.names:
            raise IllegalMove("invalid_options", f"No data set {name!r}; shipped: "
                                                 f"{list(self.names)}.")
        try:
            value = self._parse(json.loads((self.folder / f"{name}.json").read_text("utf-8")))
        except ValueError as err:
            raise IllegalMove("invalid_options", f"Data set {name!r}: {err}") from None
        self._loaded[name] = value
        return value
