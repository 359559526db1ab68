"""Board pictures for mail: the engine's SVG drawn to a PNG that travels inside the message.

Mail clients do not show SVG, and most do not load remote images, so a turn mail carries its
board as an inline PNG (`Content-ID`). resvg draws it: a wheel with no system libraries, which a
fresh machine does not have. Fonts are not a system package either: the picture is drawn with
the DejaVu Sans files shipped beside this module (their licence in `fonts/LICENSE`), never with
the machine's fonts, so the same SVG gives the same PNG everywhere. resvg's PNG is full colour
with anti-aliased edges (an Elfenland map at 800 px: about 170 KB, too much for a mail that should
stay under 200 KB); Pillow reduces it to a palette of 64 colours without dithering, which a board
of flat colours hardly shows (about 50 KB).
"""

from __future__ import annotations

import io
from pathlib import Path

import resvg_py
from PIL import Image

FONT_DIR = Path(__file__).with_name("fonts")
FONT_FILES = [str(FONT_DIR / "DejaVuSans.ttf"), str(FONT_DIR / "DejaVuSans-Bold.ttf")]
FAMILY = "DejaVu Sans"
#: the widest a mailed board is drawn (pixels): wide enough for a desktop client's reading pane,
#: and a phone scales it down
MAX_WIDTH = 800
#: colours of the mailed PNG's palette
COLOURS = 64


def board_png(svg: str, width: int | None = None) -> bytes:
    """The SVG drawn to PNG, `width` pixels wide (default: its own width, at most MAX_WIDTH)."""
    if width is None:
        width = min(MAX_WIDTH, _own_width(svg))
    full = resvg_py.svg_to_bytes(
        svg_string=svg, width=width, background="#ffffff", skip_system_fonts=True,
        font_files=FONT_FILES, font_family=FAMILY, sans_serif_family=FAMILY,
        serif_family=FAMILY, monospace_family=FAMILY)
    with Image.open(io.BytesIO(bytes(full))) as image:
        palette = image.convert("RGB").quantize(
            colors=COLOURS, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    out = io.BytesIO()
    palette.save(out, format="PNG", compress_level=6)
    return out.getvalue()


def _own_width(svg: str) -> int:
    """The `width` the SVG declares on its root (engines always set one), else MAX_WIDTH."""
    head = svg[: svg.find(">") + 1]
    start = head.find(' width="')
    if start < 0:
        return MAX_WIDTH
    value = head[start + 8: head.find('"', start + 8)]
    try:
        return max(1, round(float(value)))
    except ValueError:
        return MAX_WIDTH
