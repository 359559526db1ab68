"""Ruleset id -> engine. Importing a game does nothing else (no import-time side effects)."""

from __future__ import annotations

import importlib

from engines.contract import Engine

#: ruleset id -> module exporting ENGINE; the one list to extend when a game joins.
RULESETS: dict[str, str] = {
    "stratego": "engines.stratego",
    "totohu": "engines.totohu",
    "elfenland": "engines.elfenland",
    "stortebeker": "engines.stortebeker",
    "cartagena": "engines.cartagena",
}

_loaded: dict[str, Engine] = {}


def get_engine(ruleset: str) -> Engine:
    """The engine of a ruleset id; KeyError if there is none."""
    engine = _loaded.get(ruleset)
    if engine is None:
        module = importlib.import_module(RULESETS[ruleset])
        engine = _loaded[ruleset] = module.ENGINE
    return engine


def available() -> list[str]:
    """Every ruleset id the server offers, in registry order."""
    return list(RULESETS)
