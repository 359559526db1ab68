"""The race's move vocabulary: each move type's fields, and which decision accepts it (§4.2, §5.1).

docs/rules/elfenland.md "Moves". Split types (contract v2 point 10): `discard` is the secret
answer to a simultaneous discard, `discard_public` the public discard after one's own move.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: move type -> (required fields, optional fields), besides "type"
MOVE_FIELDS: Mapping[str, tuple[frozenset[str], frozenset[str]]] = {
    "take_counter": (frozenset({"counter"}), frozenset()),
    "draw_counter": (frozenset(), frozenset()),
    "take_card": (frozenset({"card"}), frozenset()),
    "draw_card": (frozenset(), frozenset()),
    "place_counter": (frozenset({"road", "counter"}), frozenset({"hidden"})),
    "place_obstacle": (frozenset({"road"}), frozenset({"side"})),
    "substitute": (frozenset({"road", "counter"}), frozenset({"hidden"})),
    "pass": (frozenset(), frozenset()),
    "object": (frozenset(), frozenset()),
    "allow": (frozenset(), frozenset()),
    "vote": (frozenset({"allow"}), frozenset()),
    "travel": (frozenset({"steps"}), frozenset()),
    "end_move": (frozenset(), frozenset()),
    "pick": (frozenset({"card"}), frozenset()),
    "discard": (frozenset({"cards"}), frozenset()),
    "discard_public": (frozenset({"cards"}), frozenset()),
    "discard_random": (frozenset(), frozenset()),
    "finish_round": (frozenset({"keep"}), frozenset({"discard"})),
    "steal": (frozenset({"victim"}), frozenset()),
    "no_steal": (frozenset(), frozenset()),
    "exchange": (frozenset({"left"}), frozenset({"right"})),
    "centre_put": (frozenset({"card"}), frozenset()),
    "centre_take": (frozenset({"card"}), frozenset()),
    "pass_counter": (frozenset({"counter"}), frozenset()),
    "resign": (frozenset(), frozenset()),
}

#: decision kind -> the move types it accepts (§4.2)
ACCEPTS: Mapping[str, frozenset[str]] = {
    "draft": frozenset({"take_counter", "draw_counter"}),
    "qoc_draft": frozenset({"take_counter", "draw_counter", "take_card", "draw_card"}),
    "discard": frozenset({"discard", "discard_random"}),
    "discard_public": frozenset({"discard_public", "discard_random"}),
    "centre_put": frozenset({"centre_put"}),
    "centre_take": frozenset({"centre_take"}),
    "rotation": frozenset({"pass_counter"}),
    "plan": frozenset({"place_counter", "place_obstacle", "substitute", "pass"}),
    "objection_window": frozenset({"object", "allow"}),
    "vote": frozenset({"vote"}),
    "junk_exchange": frozenset({"exchange"}),
    "move": frozenset({"travel", "end_move"}),
    "pick": frozenset({"pick"}),
    "steal": frozenset({"steal", "no_steal"}),
    "forced_step": frozenset({"travel"}),
    "finish_round": frozenset({"finish_round"}),
    "game_over": frozenset(),
}

#: decisions answered by several seats at once: submissions wait in `pending` (§4)
SIMULTANEOUS = frozenset({"discard", "objection_window", "vote", "junk_exchange",
                          "finish_round"})

#: move types whose content stays hidden from the other seats until the game ends (§7)
SECRET_MOVES = frozenset({"discard", "object", "allow", "vote", "exchange", "finish_round",
                          "pick"})


def fields_ok(move: Mapping[str, Any]) -> bool:
    """True if the move has exactly its type's required fields and no unknown one."""
    required, optional = MOVE_FIELDS[move["type"]]
    keys = set(move) - {"type"}
    return required <= keys and keys <= required | optional
