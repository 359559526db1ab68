"""Board pictures for mail: the engine's SVG drawn to a PNG that travels inside the message.

Mail clients do not show SVG, and most do not load remote images, so a turn mail carries its
board as an inline PNG (`Content-ID`). LunaSVG draws it, through `pillow-lunasvg` (a wheel with
the renderer compiled in and no system libraries, which a fresh machine does not have; importing
it also teaches `Image.open` to read SVG), straight into RGBA pixels; Pillow lays them on white
and reduces them to a palette of 64 colours without dithering (its fast octree), which a board of
flat colours hardly shows (an Elfenland map at 800 px: about 50 KB instead of 160 KB in full
colour). Fonts are not a system package either: the picture is drawn with the DejaVu Sans files
shipped beside this module (their licence in `fonts/LICENSE`), registered once per process as
LunaSVG's only fonts, so the same SVG gives the same PNG everywhere.

A group an engine marks `STATIC_GROUP` (Elfenland's roads, terrain letters, towns and haloed town
names: 60 % of its drawing) is drawn once per markup and width and kept (1.3 MB for Elfenland at
800 px, whatever the page's height); a picture then draws only what lies under the group and
what lies over it, each as a document with the same root, style sheets and enclosing groups, and
lays the three on one another: the picture drawn at once but for rounding where anti-aliased
edges meet (2-4 levels of 255).

LunaSVG falls short of resvg in two ways, handled here. It ignores `paint-order`, so a text whose
class draws the stroke first (a town name's halo) becomes two texts, the stroke alone and then
the fill alone. It lays glyphs out one by one, left to right, without shaping or kerning: right
for Latin, Greek, Cyrillic and symbols, not for Arabic, Hebrew or Indic scripts, so an SVG with
such a character (a player's name) is drawn by resvg as before (~100 ms for Elfenland, a rare
mail). Elsewhere its text differs from resvg's by fractions of a pixel and reads the same.

Speed (`python -m bench.boards`, 2-core machine, 2026-11-29, median ms per PNG, resvg before,
now): Elfenland 100-109, 18-21; Cartagena 54-76, 11-16; Störtebeker 69-74, 15-18; Stratego
59-71, 13-15; Totohu 46-56, 9-11. Of Elfenland's ~19 ms: 2-3 drawing what lies under the map,
~5 what lies over it (boots, players, hand, key), ~3 laying the layers and the white, 3.5 the
palette, 5 the deflate; six players with every travel variant take ~29. PNGs are ~5 % larger
than resvg's (Elfenland 50-57 KB at two players, up to 71 KB at six).

Tried and left out: the other resvg bindings on PyPI return a PNG too, and resvg alone spends
~45 ms on Elfenland before encoding; skia-python's SVG module ignores `<style>` (every class
drawn black); ThorVG ignores `text-anchor` and bold; pyvips' librsvg is faithful but takes 26
ms for Elfenland before the palette and finds fonts only through fontconfig; PyMuPDF is AGPL and
pulls onnxruntime; `pylunasvg` has no aarch64 wheel. `compress_level` 1-3 or zlib's RLE save
1.5-3 ms for 15-25 % more bytes (RLE: up to 80 %), and bytes decide how many boards a digest
shows; median cut takes 50 ms; resvg's `optimize_speed` draws jagged text.
"""

from __future__ import annotations

import functools
import html
import io
import math
import re
from pathlib import Path

import pillow_lunasvg
import resvg_py
from PIL import Image

FONT_DIR = Path(__file__).with_name("fonts")
FAMILY = "DejaVu Sans"
#: DejaVu Sans as shipped, regular and bold, for every script it covers
FONT_FILES = [str(FONT_DIR / "DejaVuSans.ttf"), str(FONT_DIR / "DejaVuSans-Bold.ttf")]
#: a character of a script drawn right to left or shaped (Hebrew, Arabic, Syriac, Thaana, NKo,
#: the Indic and South-East Asian scripts...), a direction mark or a presentation form: such an
#: SVG goes to resvg
_NEEDS_SHAPING = re.compile(
    "[\u0590-\u1cff\u200c-\u200f\u202a-\u202e\u2066-\u2069\ufb1d-\ufdff\ufe70-\ufefe]")
#: a class of the SVG's style sheet whose rule draws the stroke under the fill
_STROKE_FIRST = re.compile(r"\.([\w-]+)\{[^}]*paint-order:\s*stroke")
#: how an engine marks a group drawn the same in many pictures (Elfenland's roads and towns):
#: a hint that it is worth keeping drawn (`_static_layer`), whatever it holds
STATIC_GROUP = '<g data-layer="static">'
#: an element's tag: closing (1), name (2), self-closing (3)
_TAG = re.compile(r"<(/?)([\w:.-]+)[^>]*?(/?)>")
#: the root tag as engines write it (`engines.svg.Svg`): width (2), the viewBox's width (4)
_ROOT = re.compile(r'(<svg [^>]*?width="([\d.]+)" )height="[\d.]+"'
                   r'( viewBox="[-\d.]+ [-\d.]+ ([\d.]+) )[\d.]+("[^>]*>)')
_SHEETS = re.compile(r"<style\b.*?</style>|<defs\b.*?</defs>", re.S)
#: the widest a mailed board is drawn (pixels): wide enough for a desktop client's reading pane,
#: and a phone scales it down
MAX_WIDTH = 800
#: colours of the mailed PNG's palette
COLOURS = 64

pillow_lunasvg.add_font_file(FONT_FILES[0], FAMILY)
pillow_lunasvg.add_font_file(FONT_FILES[1], FAMILY, bold=True)


def board_png(svg: str, width: int | None = None) -> bytes:
    """The SVG drawn to PNG, `width` pixels wide (default: its own width, at most MAX_WIDTH)."""
    if width is None:
        width = min(MAX_WIDTH, _own_width(svg))
    if _NEEDS_SHAPING.search(html.unescape(svg)):
        picture = _resvg(svg, width)
    else:
        picture = _lunasvg(_stroke_first(svg), width)
    palette = picture.quantize(
        colors=COLOURS, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    out = io.BytesIO()
    palette.save(out, format="PNG", compress_level=6)
    return out.getvalue()


def _lunasvg(svg: str, width: int) -> Image.Image:
    """The SVG drawn by LunaSVG, `width` pixels wide, on white (RGB): layer by layer, each
    static one from the cache."""
    (first, _), *rest = _layers(svg)
    picture = _draw(first, width)
    for doc, static in rest:
        corner, layer = _static_layer(doc, width) if static else ((0, 0), _draw(doc, width))
        picture.alpha_composite(layer, dest=corner)
    if picture.getchannel("A").getextrema()[0] == 255:  # engines paint their own background
        return picture.convert("RGB")
    white = Image.new("RGB", picture.size, "#ffffff")
    white.paste(picture, mask=picture)
    return white


def _draw(svg: str, width: int) -> Image.Image:
    """The SVG drawn by LunaSVG, `width` pixels wide, on transparent (RGBA)."""
    drawn = Image.open(io.BytesIO(svg.encode()), formats=["SVG"])
    scale = width / drawn.width  # the plugin sizes the picture ceil(own size * scale)
    while math.ceil(drawn.width * scale) > width:
        scale = math.nextafter(scale, 0)
    drawn.load(scale=scale)  # and lets go of the SVG
    return drawn


@functools.lru_cache(maxsize=16)
def _static_layer(doc: str, width: int) -> tuple[tuple[int, int], Image.Image]:
    """A static group drawn alone (`_layers`), cut to what it covers: where its corner lies
    and its pixels. An Elfenland map at 800 px keeps about 1.6 MB."""
    drawn = _draw(doc, width)
    box = drawn.getbbox() or (0, 0, 0, 0)
    return box[:2], drawn.crop(box)


def _layers(svg: str) -> list[tuple[str, bool]]:
    """The SVG as documents to draw one over the other, and whether each is a static group
    (`STATIC_GROUP`): the markup before the first such group, the group alone, then the rest,
    cut in turn. Each document has the root, the style sheets and the groups enclosing the cut;
    a static group's root is made twice as tall as it is wide, so that its picture does not
    depend on the height of the page it comes in."""
    start = svg.find(STATIC_GROUP)
    root = _ROOT.match(svg)
    if start < 0 or root is None:
        return [(svg, False)]
    enclosing: list[re.Match[str]] = []  # the elements open where the group starts
    for tag in _TAG.finditer(svg, 0, start):
        if tag[1]:
            enclosing.pop()
        elif not tag[3]:
            enclosing.append(tag)
    depth = 0
    for tag in _TAG.finditer(svg, start):
        depth += -1 if tag[1] else 0 if tag[3] else 1
        if depth == 0:
            break
    end = tag.end()
    sheets = "".join(_SHEETS.findall(svg, 0, start))
    inner = "".join(tag[0] for tag in enclosing[1:])
    closes = "".join(f"</{tag[2]}>" for tag in reversed(enclosing))
    tall = root[1] + f'height="{2 * float(root[2]):g}"' + root[3] + f"{2 * float(root[4]):g}"
    return [(svg[:start] + closes, False),
            (tall + root[5] + sheets + inner + svg[start:end] + closes, True),
            *_layers(svg[:root.end()] + sheets + inner + svg[end:])]


def _resvg(svg: str, width: int) -> Image.Image:
    """The SVG drawn by resvg, which shapes every script, `width` pixels wide, on white (RGB)."""
    full = resvg_py.svg_to_bytes(
        svg_string=svg, width=width, background="#ffffff", skip_system_fonts=True,
        font_files=FONT_FILES, font_family=FAMILY, sans_serif_family=FAMILY,
        serif_family=FAMILY, monospace_family=FAMILY)
    with Image.open(io.BytesIO(bytes(full))) as image:
        return image.convert("RGB")


def _stroke_first(svg: str) -> str:
    """The SVG with each text whose class draws the stroke under the fill (`paint-order`, which
    LunaSVG ignores) split in two: the stroke alone, then the fill alone over it."""
    classes = _STROKE_FIRST.findall(svg)
    if not classes:
        return svg
    names = "|".join(map(re.escape, classes))
    text = re.compile(r'<text\b(?![^>]*\bstyle=)([^>]*\bclass="(?:[^"]*\s)?(?:' + names
                      + r')(?:\s[^"]*)?"[^>]*)>(.*?)</text>', re.S)
    return text.sub(lambda m: f'<text{m[1]} style="fill:none">{m[2]}</text>'
                              f'<text{m[1]} style="stroke:none">{m[2]}</text>', svg)


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
