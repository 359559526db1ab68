"""Board pictures: the time to draw a seat's SVG, and to draw that SVG to the PNG a mail carries.

For every ruleset and variant (at the usual seat count), views sampled along random playouts:
ms per `render_svg` (through `engines.svg.board_picture`, as the API and the mail draw) and per
`board_png` (resvg, the mail's width), and the largest SVG and PNG in bytes (a mailed PNG should
stay under 80 KB). Targets: an SVG in at most
5 ms, a PNG in at most 30 ms (the issue names the largest board, Elfenland's; every board is
held to it here).
"""

from __future__ import annotations

import random
import time
from typing import Any

from bench.common import Figure, main
from engines.contract import Engine
from engines.registry import available, get_engine
from engines.rng import SeededRng
from engines.svg import board_picture
from service.notify.board_image import board_png

TARGET_SVG_MS = 5.0
TARGET_PNG_MS = 30.0
NAMES = ("Ann", "Bob", "Cleo", "Dan", "Eve", "Fay")


def sample_views(engine: Engine, options: dict[str, Any], seats: int, count: int,
                 seed: int) -> list[dict[str, Any]]:
    """Views of the seat to act at states sampled along random playouts."""
    chooser = random.Random(seed)
    rng = SeededRng(seed)
    views: list[dict[str, Any]] = []
    while len(views) < count:
        state = engine.setup(engine.validate_options(options, seats), seats, rng)
        while engine.result(state) is None and len(views) < count:
            seat = chooser.choice(engine.decision(state)["to_act"])
            if chooser.random() < 0.1:
                views.append(engine.view(state, seat))
            move = chooser.choice(list(engine.legal_moves(state, seat)))
            state, _ = engine.apply(state, seat, move, rng)
    return views


def run(runs: int | None = None, quick: bool = False, **_: Any) -> list[Figure]:
    runs = runs or (1 if quick else 3)
    count = 20 if quick else 100
    figures: list[Figure] = []
    for ruleset in available():
        engine = get_engine(ruleset)
        seats = max(engine.min_players, 2 if engine.max_players >= 2 else 1)
        for variant in engine.variants:
            svg = Figure(f"board {ruleset}/{variant.id} svg", unit="ms", op="<=",
                         target=TARGET_SVG_MS)
            png = Figure(f"board {ruleset}/{variant.id} png", unit="ms", op="<=",
                         target=TARGET_PNG_MS)
            size = Figure(f"board {ruleset}/{variant.id} largest svg", unit="bytes")
            png_size = Figure(f"board {ruleset}/{variant.id} largest png", unit="bytes")
            for n in range(runs):
                views = sample_views(engine, dict(variant.options), seats, count, seed=11 + n)
                names = NAMES[:seats]
                t = time.perf_counter()
                pictures = [board_picture(engine, v, names) for v in views]
                svg.samples.append((time.perf_counter() - t) / len(views) * 1e3)
                drawn = pictures[:: max(1, len(pictures) // 10)]
                t = time.perf_counter()
                pngs = [board_png(picture) for picture in drawn]
                png.samples.append((time.perf_counter() - t) / len(drawn) * 1e3)
                size.samples.append(max(len(p.encode()) for p in pictures))
                png_size.samples.append(max(len(p) for p in pngs))
            figures += [svg, png, size, png_size]
    return figures


if __name__ == "__main__":
    raise SystemExit(main(run, __doc__.splitlines()[0]))
