"""The mailed board PNG (service/notify/board_image.py): deterministic, at the expected size and
palette, within the mail's budget; haloed texts keep their halo under the letters, a static group
is drawn once and composed as if drawn in place, and names that need shaping go to resvg."""

from __future__ import annotations

import io
import random

import pytest
from PIL import Image, ImageChops

from engines.registry import get_engine
from engines.rng import SeededRng
from engines.svg import board_picture
from service.notify import board_image
from service.notify.board_image import COLOURS, MAX_WIDTH, board_png


def _elfenland_svg(seats: int = 2) -> str:
    """The largest board: an Elfenland view some moves into a game."""
    engine = get_engine("elfenland")
    variant = engine.variants[0]
    rng, chooser = SeededRng(5), random.Random(5)
    state = engine.setup(engine.validate_options(dict(variant.options), seats), seats, rng)
    for _ in range(12):
        seat = chooser.choice(engine.decision(state)["to_act"])
        state, _ = engine.apply(state, seat, chooser.choice(list(engine.legal_moves(state, seat))),
                                rng)
    seat = engine.decision(state)["to_act"][0]
    return board_picture(engine, engine.view(state, seat), ["Ann", "Bob", "Cleo", "Dan"][:seats])


def _svg(*lines: str) -> str:
    """A small picture of text lines, regular and bold, as engines write them."""
    weights = ("normal", "bold")
    texts = "".join(
        f'<text x="10" y="{30 + 24 * n}" font-size="16" font-weight="{weights[n % 2]}">'
        f"{line}</text>" for n, line in enumerate(lines))
    return ('<svg xmlns="http://www.w3.org/2000/svg" width="900" height="500" '
            'viewBox="0 0 900 500" font-family="DejaVu Sans, Verdana, Arial, sans-serif">'
            f'<rect width="900" height="500" fill="#FBFAF5"/>{texts}</svg>')


def test_the_largest_board_is_drawn_at_the_mail_width_within_its_budget() -> None:
    svg = _elfenland_svg()
    png = board_png(svg)
    assert png == board_png(svg)  # deterministic: a retried mail carries the same bytes
    with Image.open(io.BytesIO(png)) as image:
        assert image.format == "PNG" and image.mode == "P"
        assert image.size == (MAX_WIDTH, round(MAX_WIDTH * 946 / 1000))
        assert len(image.getcolors()) <= COLOURS
    assert 10_000 < len(png) <= 80_000


def test_a_width_asked_for_is_the_width_drawn() -> None:
    png = board_png(_svg("Elfenland"), width=450)
    with Image.open(io.BytesIO(png)) as image:
        assert image.size == (450, 250)


def test_a_static_group_is_drawn_once_and_composed_as_if_drawn_in_place() -> None:
    two, four = _elfenland_svg(2), _elfenland_svg(4)
    assert board_image.STATIC_GROUP in two and _height(two) != _height(four)
    board_image._static_layer.cache_clear()
    for svg in (two, four):
        layered = board_image._lunasvg(board_image._stroke_first(svg), MAX_WIDTH)
        whole = board_image._lunasvg(
            board_image._stroke_first(svg.replace(board_image.STATIC_GROUP, "<g>")), MAX_WIDTH)
        assert layered.size == whole.size
        # the same picture but for rounding where anti-aliased edges meet
        assert max(high for _, high in ImageChops.difference(layered, whole).getextrema()) <= 8
    info = board_image._static_layer.cache_info()
    assert (info.misses, info.hits) == (1, 1)  # the map, whatever the page's height


def test_a_text_drawn_stroke_first_keeps_its_letters_over_its_halo() -> None:
    style = ("<style>.tn{font-size:20px;font-weight:bold;fill:#1A1A1A;stroke:#FBFAF5;"
             "stroke-width:3;paint-order:stroke;stroke-linejoin:round}</style>")
    halo = _svg("").replace("<rect", f'{style}<rect').replace(
        "</svg>", '<rect x="0" y="60" width="900" height="40" fill="#2E7D32"/>'
                  '<text class="tn" x="10" y="90">Elvenhold</text></svg>')
    by_hand = halo.replace(
        '<text class="tn" x="10" y="90">Elvenhold</text>',
        '<text class="tn" x="10" y="90" style="fill:none">Elvenhold</text>'
        '<text class="tn" x="10" y="90" style="stroke:none">Elvenhold</text>')
    assert board_png(halo) == board_png(by_hand)
    assert board_png(halo) != board_png(halo.replace("paint-order:stroke;", ""))


@pytest.mark.parametrize("name", ["سلام", "&#1513;&#1500;&#1493;&#1501;", "देव"])
def test_names_that_need_shaping_are_drawn_by_resvg(monkeypatch, name) -> None:
    drawn = []
    resvg = board_image._resvg
    monkeypatch.setattr(board_image, "_resvg", lambda *a: drawn.append(a) or resvg(*a))
    png = board_png(_svg(f"To act: {name}", "Bob"))
    assert len(drawn) == 1 and png != board_png(_svg("To act: ", "Bob"))


@pytest.mark.parametrize("name", ["Жанна", "&#1046;anna", "Zoë ☃", "Ελένη"])
def test_other_scripts_are_drawn_by_lunasvg_with_the_full_faces(monkeypatch, name) -> None:
    monkeypatch.setattr(board_image, "_resvg", None)
    assert board_png(_svg(f"To act: {name}", "Bob")) != board_png(_svg("To act: ", "Bob"))
    assert board_png(_svg("Жанна")) != board_png(_svg("Шанна"))  # letters, not empty boxes


def _height(svg: str) -> str:
    return svg.split(' height="', 1)[1].split('"', 1)[0]
