"""Board pictures for mail: the engine's SVG drawn to a PNG that travels inside the message.

Mail clients do not show SVG, and most do not load remote images, so a turn mail carries its
board as an inline PNG (`Content-ID`). resvg draws it: a wheel with no system libraries, which a
fresh machine does not have. Fonts are not a system package either: the picture is drawn with
the DejaVu Sans files shipped beside this module (their licence in `fonts/LICENSE`), never with
the machine's fonts, so the same SVG gives the same PNG everywhere. resvg's PNG is full colour
with anti-aliased edges (an Elfenland map at 800 px: about 160 KB, too much for a mail that should
stay under 200 KB); Pillow reduces it to a palette of 64 colours without dithering (its fast
octree), which a board of flat colours hardly shows (about 50 KB).

Speed (`python -m bench.boards`, 2-core machine, 2026-11-29): an Elfenland PNG costs about
110 ms, the other boards 45-75 ms, far over the 30 ms wanted. Nearly all of it is resvg, one
call that holds the GIL and returns only a PNG: for Elfenland at 800 px about 5 ms to parse the
SVG, 15-20 ms to lay out its ~140 texts, 25 ms to rasterise and 30-35 ms to encode the
full-colour PNG that Pillow decodes again (8 ms), quantizes (3.5 ms) and writes (5 ms). The one
gain that keeps the picture: texts are laid out with `fonts/*-Latin.ttf`, DejaVu Sans cut down
to Latin letters and punctuation (same outlines and shaping tables, so the same pixels; 45 KB
instead of 750 KB a face), 4-6 ms less a board; an SVG with any other character is drawn with
the full faces. Tried and left out: the palette is already Pillow's fastest (median cut 50 ms,
`convert("P")` 40 ms); a faster deflate (`compress_level` 1-4) saves 1.5-2.5 ms for 5-20 % more
bytes, and bytes decide how many boards a digest shows; resvg's `optimize_speed`/`crisp_edges`
save 10-30 ms but draw jagged text and roads; 640 px wide saves about 20 % (8.5 px labels become
5.4 px), and even 480 px with all of these costs ~38 ms; a cache of drawn PNGs would not help a
turn mail, each player's view (so SVG) being their own.
"""

from __future__ import annotations

import html
import io
import re
from pathlib import Path

import resvg_py
from PIL import Image

FONT_DIR = Path(__file__).with_name("fonts")
#: DejaVu Sans as shipped, regular and bold, for every script it covers
FONT_FILES = [str(FONT_DIR / "DejaVuSans.ttf"), str(FONT_DIR / "DejaVuSans-Bold.ttf")]
#: the same faces with only the characters `_BEYOND_LATIN` does not match, made with fontTools:
#: pyftsubset DejaVuSans.ttf --output-file=DejaVuSans-Latin.ttf --layout-features='*'
#:   --unicodes=U+0020-007E,U+00A0-017F,U+2010-2027,U+2030-203A,U+20AC,U+2190-2193,U+2212
#:   --no-hinting --drop-tables+=kern,MATH,FFTM --no-glyph-names --name-IDs='*'
#: (and the same for the bold face)
LATIN_FONT_FILES = [str(FONT_DIR / "DejaVuSans-Latin.ttf"),
                    str(FONT_DIR / "DejaVuSans-Bold-Latin.ttf")]
#: a character the Latin faces lack
_BEYOND_LATIN = re.compile(
    "[^\t\n\r\x20-\x7e\xa0-\u017f\u2010-\u2027\u2030-\u203a\u20ac\u2190-\u2193\u2212]")
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
    fonts = FONT_FILES if _BEYOND_LATIN.search(html.unescape(svg)) else LATIN_FONT_FILES
    full = resvg_py.svg_to_bytes(
        svg_string=svg, width=width, background="#ffffff", skip_system_fonts=True,
        font_files=fonts, font_family=FAMILY, sans_serif_family=FAMILY,
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
