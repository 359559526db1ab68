"""The race's text notation: one line per move (docs/rules/elfenland.md "Notation").

A word for the move, then its arguments. Card multisets are comma-joined types with an optional
`*count` (`troll_wagon*2,raft`), `-` when empty. A travel step is `<road>=<cards>`, a chain
`<r1>+<r2>=<cards>`, a caravan or ferryman `<road>=caravan:<cards>` / `=ferryman:<cards>`.
Examples: `travel 1=giant_pig 10=troll_wagon*2`, `place 13 troll_wagon hidden`,
`obstacle 13 at ixara`, `finish keep=dragon:hidden discard=raft`.
"""

from __future__ import annotations

import re
from typing import Any

from engines.contract import BAD_NOTATION, IllegalMove, Move

NOTATION = (
    "One line per move: a word, then arguments. Card multisets are comma-joined types with an "
    "optional *count ('-' when empty); travel steps are <road>=<cards>, <r1>+<r2>=<cards> "
    "(non-stop) or <road>=caravan:<cards> / <road>=ferryman:<cards>. Examples: 'travel "
    "1=giant_pig 10=troll_wagon*2', 'place 13 troll_wagon hidden', 'obstacle 13 at ixara', "
    "'take dragon', 'draw', 'pass', 'end', 'discard-public raft,dragon', "
    "'finish keep=dragon:hidden', 'exchange raft dragon', 'vote no', 'resign'."
)

_SIMPLE = {"draw_counter": "draw", "draw_card": "draw-card", "pass": "pass",
           "object": "object", "allow": "allow", "end_move": "end",
           "discard_random": "discard-random", "no_steal": "no-steal", "resign": "resign"}
_ONE_ARG = {"take_counter": ("take", "counter"), "take_card": ("take-card", "card"),
            "pick": ("pick", "card"), "centre_put": ("centre-put", "card"),
            "centre_take": ("centre-take", "card"), "pass_counter": ("pass-counter", "counter")}
_MULTI = {"discard": "discard", "discard_public": "discard-public"}
_WORDS = {**{w: t for t, w in _SIMPLE.items()}, **{w: t for t, (w, _f) in _ONE_ARG.items()},
          **{w: t for t, w in _MULTI.items()}}
_NAME = re.compile(r"[a-z_]+")
_INT = re.compile(r"-?\d+")


def _bad(text: str) -> IllegalMove:
    return IllegalMove(BAD_NOTATION, f"Cannot read {text!r} as an Elfenland move.")


def fmt_multiset(m: dict[str, int]) -> str:
    """`{"troll_wagon": 2, "raft": 1}` -> `troll_wagon*2,raft`; `{}` -> `-`."""
    if not m:
        return "-"
    return ",".join(k if v == 1 else f"{k}*{v}" for k, v in m.items())


def parse_multiset(text: str, whole: str) -> dict[str, int]:
    """The inverse of `fmt_multiset`; repeated types add up."""
    if text == "-":
        return {}
    out: dict[str, int] = {}
    for part in text.split(","):
        name, _, count = part.partition("*")
        if not _NAME.fullmatch(name) or (count and not count.isdigit()):
            raise _bad(whole)
        n = int(count) if count else 1
        if n < 1:
            raise _bad(whole)
        out[name] = out.get(name, 0) + n
    return out


def _fmt_step(step: dict[str, Any]) -> str:
    roads = "+".join(str(r) for r in step["roads"]) if "roads" in step else str(step["road"])
    for form in ("caravan", "ferryman"):
        if form in step:
            return f"{roads}={form}:{fmt_multiset(step[form])}"
    return f"{roads}={fmt_multiset(step['cards'])}"


def _parse_step(text: str, whole: str) -> dict[str, Any]:
    roads, eq, pay = text.partition("=")
    if not eq:
        raise _bad(whole)
    ids = roads.split("+")
    if not all(_INT.fullmatch(r) for r in ids):
        raise _bad(whole)
    form = "cards"
    for name in ("caravan", "ferryman"):
        if pay.startswith(name + ":"):
            form, pay = name, pay[len(name) + 1:]
    multiset = parse_multiset(pay, whole)
    if len(ids) > 1:
        if form != "cards":
            raise _bad(whole)
        return {"roads": [int(r) for r in ids], "cards": multiset}
    return {"road": int(ids[0]), form: multiset}


def format_move(move: Move) -> str | None:
    """The move's text, or None if it is no race move (the war's notation takes over)."""
    t = move.get("type") if isinstance(move, dict) else None
    try:
        if t in _SIMPLE:
            return _SIMPLE[t]
        if t in _ONE_ARG:
            word, name = _ONE_ARG[t]
            return f"{word} {move[name]}"
        if t in _MULTI:
            return f"{_MULTI[t]} {fmt_multiset(move['cards'])}"
        if t in ("place_counter", "substitute"):
            word = "place" if t == "place_counter" else "substitute"
            hidden = " hidden" if move.get("hidden") else ""
            return f"{word} {move['road']} {move['counter']}{hidden}"
        if t == "place_obstacle":
            side = move.get("side")
            return f"obstacle {move['road']}" + (f" at {side}" if side else "")
        if t == "vote":
            return "vote yes" if move["allow"] else "vote no"
        if t == "travel":
            return "travel " + " ".join(_fmt_step(s) for s in move["steps"])
        if t == "steal":
            return f"steal {move['victim']}"
        if t == "exchange":
            right = move.get("right")
            return f"exchange {move['left']}" + (f" {right}" if right else "")
        if t == "finish_round":
            keep = move["keep"]
            text = "finish keep=" + ("none" if keep is None else keep["counter"] + (
                ":hidden" if keep.get("hidden") else ""))
            if move.get("discard"):
                text += f" discard={fmt_multiset(move['discard'])}"
            return text
    except (KeyError, TypeError, AttributeError):
        return None
    return None


def parse_move(text: str) -> Move | None:
    """The race move a text names, read without regard to case or spacing (every id is lower
    case: a phone's keyboard capitalises); None if the first word is no race word."""
    if not isinstance(text, str):
        raise _bad(repr(text))
    words = text.lower().split()
    if not words:
        raise _bad(text)
    head, args = words[0], words[1:]
    if head in _WORDS:
        t = _WORDS[head]
        if t in _SIMPLE and not args:
            return {"type": t}
        if t in _ONE_ARG and len(args) == 1 and _NAME.fullmatch(args[0]):
            return {"type": t, _ONE_ARG[t][1]: args[0]}
        if t in _MULTI and len(args) == 1:
            return {"type": t, "cards": parse_multiset(args[0], text)}
        raise _bad(text)
    if head in ("place", "substitute"):
        if len(args) not in (2, 3) or not _INT.fullmatch(args[0]) or not _NAME.fullmatch(args[1]):
            raise _bad(text)
        if len(args) == 3 and args[2] != "hidden":
            raise _bad(text)
        return {"type": "place_counter" if head == "place" else "substitute",
                "road": int(args[0]), "counter": args[1], "hidden": len(args) == 3}
    if head == "obstacle":
        if len(args) == 1 and _INT.fullmatch(args[0]):
            return {"type": "place_obstacle", "road": int(args[0])}
        if len(args) == 3 and _INT.fullmatch(args[0]) and args[1] == "at":
            return {"type": "place_obstacle", "road": int(args[0]), "side": args[2]}
        raise _bad(text)
    if head == "vote" and len(args) == 1 and args[0] in ("yes", "no"):
        return {"type": "vote", "allow": args[0] == "yes"}
    if head == "travel" and args:
        return {"type": "travel", "steps": [_parse_step(a, text) for a in args]}
    if head == "steal" and len(args) == 1 and _INT.fullmatch(args[0]):
        return {"type": "steal", "victim": int(args[0])}
    if head == "exchange" and len(args) in (1, 2) and all(_NAME.fullmatch(a) for a in args):
        move: Move = {"type": "exchange", "left": args[0]}
        if len(args) == 2:
            move["right"] = args[1]
        return move
    if head == "finish" and args and args[0].startswith("keep="):
        keep_text = args[0][5:]
        keep: dict[str, Any] | None = None
        if keep_text != "none":
            name, _, flag = keep_text.partition(":")
            if not _NAME.fullmatch(name) or flag not in ("", "hidden"):
                raise _bad(text)
            keep = {"counter": name, "hidden": flag == "hidden"}
        move = {"type": "finish_round", "keep": keep}
        if len(args) == 2 and args[1].startswith("discard="):
            move["discard"] = parse_multiset(args[1][8:], text)
        elif len(args) != 1:
            raise _bad(text)
        return move
    if head in ("place", "substitute", "obstacle", "vote", "travel", "steal", "exchange",
                "finish"):
        raise _bad(text)
    return None

