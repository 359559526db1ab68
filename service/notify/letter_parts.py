"""A letter's lines made into its two parts: plain text, and HTML with the boards as pictures.

The HTML part shows each board as a picture carried in the mail (the engine's SVG drawn to PNG
by `service.notify.board_image`), drawn when the notification worker writes the mail, never on
the move path, and only as many as keep the mail within `mail.MAX_BYTES`. A board whose picture
cannot be drawn (logged) or does not fit stays text there too. The text is monospaced in the
HTML (boards line up in every client) with its links made clickable.
"""

from __future__ import annotations

import html
import logging
import re
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import unescape

from engines.contract import Engine
from engines.svg import board_picture
from service.notify import mail
from service.notify.board_image import board_png

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Letter:
    """One mail's subject, plain text and HTML alternative with the `pictures` its HTML
    shows; `told`: the last event id it told (the next turn mail of the thread tells the
    events after it)."""

    subject: str
    text: str
    html: str
    told: int
    pictures: tuple[mail.Inline, ...] = ()


@dataclass(frozen=True)
class Board:
    """A board in a letter: its text, and the seat's view its picture is drawn from; `cid`
    names the picture in the mail (deterministic, so a retry carries the same one)."""

    text: str
    engine: Engine
    view: dict[str, Any]
    names: tuple[str, ...]
    cid: str


@dataclass(frozen=True)
class Picture:
    """A board drawn: the inline part, what it shows in words (`alt`), its size in pixels."""

    part: mail.Inline
    alt: str
    width: int
    height: int


#: a line of a letter: text, or a board (text in the plain part, a picture in the HTML)
Line = str | Board


#: a link or reply address in the text; a link never ends in punctuation, which is the
#: sentence's ("PUT https://…/mail." links …/mail)
_URL = re.compile(r"https?://[^\s<>\"']*[^\s<>\"'.,;:!?)\]]"
                  r"|move-[a-z2-7]+@[A-Za-z0-9.-]*[A-Za-z0-9]")


def _link(target: str) -> str:
    return target if target.startswith("http") else f"mailto:{target}"


def compose(subject: str, lines: Sequence[Line], told: int, draw: bool = True) -> Letter:
    """The letter of these lines: boards as text in the plain part; in the HTML part as
    pictures (when `draw`), each one only while the mail stays within `mail.MAX_BYTES`."""
    text = "\n".join(line.text if isinstance(line, Board) else line for line in lines) + "\n"
    shown: dict[str, Picture] = {}
    left_out: set[str] = set()
    for board in (line for line in lines if isinstance(line, Board) and draw):
        if left_out:
            left_out.add(board.cid)  # the budget is spent: later boards stay text
            continue
        picture = _draw(board)
        if picture is None:
            continue
        trial = {**shown, board.cid: picture}
        if mail.weight(text, _html(lines, trial, left_out),
                       [p.part for p in trial.values()]) > mail.MAX_BYTES:
            left_out.add(board.cid)
        else:
            shown = trial
    return Letter(subject, text, _html(lines, shown, left_out), told,
                  tuple(p.part for p in shown.values()))


def _draw(board: Board) -> Picture | None:
    """The board's picture, or None if drawing failed (the mail goes without it)."""
    try:
        svg = board_picture(board.engine, board.view, board.names)
        png = board_png(svg)
    except Exception:  # an engine's drawing bug must not hold back its players' mail
        log.exception("the picture %s could not be drawn; the mail shows the text board",
                      board.cid)
        return None
    width, height = struct.unpack(">II", png[16:24])  # the IHDR chunk, first in every PNG
    return Picture(mail.Inline(board.cid, png), _described(svg), width, height)


def _described(svg: str) -> str:
    """The picture's alternative text: its own title and description (engines write both)."""
    said = [unescape(m[1]).strip() for m in (re.search(f"<{tag}>(.*?)</{tag}>", svg, re.S)
                                              for tag in ("title", "desc")) if m]
    return " ".join(s if s.endswith(".") else f"{s}." for s in said if s) or "The board."


def _html(lines: Sequence[Line], shown: Mapping[str, Picture], left_out: set[str]) -> str:
    """The same text, monospaced (boards line up in every client), links clickable; a board
    in `shown` as its picture, one in `left_out` as text with a word on why."""
    blocks: list[str] = []
    run: list[str] = []
    for line in lines:
        if not isinstance(line, Board):
            run.append(line)
            continue
        if line.cid not in shown and line.cid not in left_out:
            run.append(line.text)
            continue
        blocks.append(_pre(run))
        run = []
        if line.cid in shown:
            blocks.append(_img(line.cid, shown[line.cid]))
        else:
            blocks += ["<p><i>The picture of this board is left out to keep the mail "
                       "small; the board as text:</i></p>\n", _pre([line.text])]
    blocks.append(_pre(run))
    return "<!DOCTYPE html>\n<html><body>\n" + "".join(blocks) + "</body></html>\n"


def _pre(lines: Sequence[str]) -> str:
    text = "\n".join(lines).strip("\n")
    if not text:
        return ""
    body = _linked(text + "\n")
    return f"<pre style=\"font-family: monospace\">{body}</pre>\n"


def _linked(text: str) -> str:
    """The text escaped, its links and reply addresses clickable (found before escaping, so
    that an entity such as `&gt;` never ends up inside a link)."""
    out, at = [], 0
    for m in _URL.finditer(text):
        out += [html.escape(text[at:m.start()], quote=False),
                f'<a href="{html.escape(_link(m[0]))}">{html.escape(m[0], quote=False)}</a>']
        at = m.end()
    return "".join([*out, html.escape(text[at:], quote=False)])


def _img(cid: str, picture: Picture) -> str:
    """The picture at its own size, scaled down to a narrow screen."""
    return (f'<p><img src="cid:{html.escape(cid)}" alt="{html.escape(picture.alt)}" '
            f'width="{picture.width}" height="{picture.height}" '
            'style="max-width: 100%; height: auto"></p>\n')
