"""The mailed board PNG (service/notify/board_image.py): deterministic, at the expected size and
palette, within the mail's budget, and the same pixels whether its texts are laid out with the
Latin cut of DejaVu Sans or the full faces, which still draw every other script."""

from __future__ import annotations

import io
import random

import pytest
from PIL import Image

from engines.registry import get_engine
from engines.rng import SeededRng
from engines.svg import board_picture
from service.notify import board_image
from service.notify.board_image import COLOURS, MAX_WIDTH, board_png


def _elfenland_svg() -> str:
    """The largest board: an Elfenland view some moves into a game."""
    engine = get_engine("elfenland")
    variant = engine.variants[0]
    rng, chooser = SeededRng(5), random.Random(5)
    state = engine.setup(engine.validate_options(dict(variant.options), 2), 2, rng)
    for _ in range(12):
        seat = chooser.choice(engine.decision(state)["to_act"])
        state, _ = engine.apply(state, seat, chooser.choice(list(engine.legal_moves(state, seat))),
                                rng)
    seat = engine.decision(state)["to_act"][0]
    return board_picture(engine, engine.view(state, seat), ["Ann", "Bob"])


def _svg(*lines: str) -> str:
    """A small picture of text lines, regular and bold, as engines write them."""
    weights = ("normal", "bold")
    texts = "".join(
        f'<text x="10" y="{30 + 24 * n}" font-size="16" font-weight="{weights[n % 2]}">'
        f"{line}</text>" for n, line in enumerate(lines))
    return ('<svg xmlns="http://www.w3.org/2000/svg" width="900" height="500" '
            'viewBox="0 0 900 500" font-family="DejaVu Sans, Verdana, Arial, sans-serif">'
            f'<rect width="900" height="500" fill="#FBFAF5"/>{texts}</svg>')


def _latin_characters() -> list[str]:
    """Every character the Latin faces are trusted with (XML's own specials left out)."""
    return [c for c in map(chr, range(0x20, 0x2300))
            if c not in "<>&" and not board_image._BEYOND_LATIN.fullmatch(c)]


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


def test_the_latin_faces_draw_their_characters_as_the_full_faces_do(monkeypatch) -> None:
    chars = _latin_characters()
    assert len(chars) > 350 and "é" in chars and "–" in chars and "Ж" not in chars
    svg = _svg(*("".join(chars[i: i + 60]) for i in range(0, len(chars), 60)))
    latin = board_png(svg)
    monkeypatch.setattr(board_image, "LATIN_FONT_FILES", board_image.FONT_FILES)
    assert board_png(svg) == latin


@pytest.mark.parametrize("name", ["Жанна", "&#1046;anna", "Zoë ☃"])
def test_other_scripts_are_drawn_with_the_full_faces(monkeypatch, name) -> None:
    svg = _svg(f"To act: {name}", "Bob")
    drawn = board_png(svg)
    monkeypatch.setattr(board_image, "LATIN_FONT_FILES", board_image.FONT_FILES)
    assert board_png(svg) == drawn
    # the Latin faces alone would lose the name's letters
    monkeypatch.setattr(board_image, "FONT_FILES", [
        str(board_image.FONT_DIR / "DejaVuSans-Latin.ttf"),
        str(board_image.FONT_DIR / "DejaVuSans-Bold-Latin.ttf")])
    assert board_png(svg) != drawn
