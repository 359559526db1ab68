"""The sample board pictures docs/games.md shows: `make boards` writes them to docs/boards/.

One picture per game (the Elfenland war too), each of a seeded random game played part of the
way, from the first player's side: the same code always gives the same files, and a test checks
that the committed pictures are what the drawing code draws now (run `make boards` after
changing a drawing).
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

from engines.registry import get_engine
from engines.rng import SeededRng
from engines.svg import board_picture

NAMES = ("Ann", "Bob", "Cleo", "Dan")
#: file stem -> (ruleset, options, seats, moves played)
SAMPLES: dict[str, tuple[str, dict[str, Any], int, int]] = {
    "stratego": ("stratego", {}, 2, 120),
    "cartagena": ("cartagena", {}, 3, 40),
    "elfenland": ("elfenland", {}, 4, 120),
    "elfenland-war": ("elfenland", {"mode": "war"}, 3, 60),
    "stortebeker": ("stortebeker", {}, 3, 40),
    "totohu": ("totohu", {}, 2, 12),
}


def sample(stem: str) -> str:
    """The picture of one sample: seat 0's view after the sample's moves (fewer where the
    game ends first), chosen by a seeded chooser among each decision's legal moves but
    resignations."""
    ruleset, options, seats, moves = SAMPLES[stem]
    engine = get_engine(ruleset)
    rng, chooser = SeededRng(7), random.Random(7)
    state = engine.setup(engine.validate_options(options, seats), seats, rng)
    for _ in range(moves):
        if engine.result(state) is not None:
            break
        seat = engine.decision(state)["to_act"][0]
        choices = [m for m in engine.legal_moves(state, seat) if m.get("type") != "resign"]
        state, _ = engine.apply(state, seat, chooser.choice(choices), rng)
    return board_picture(engine, engine.view(state, 0), NAMES[:seats])


def write_all(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for stem in SAMPLES:
        path = folder / f"{stem}.svg"
        path.write_text(sample(stem) + "\n", encoding="utf-8")
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    for path in write_all(Path(args[0] if args else "docs/boards")):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
