"""The war game's error codes, each with its one line (spec §5.6; docs/rules/elfenland-war.md).

Checks run in the spec's order (§5.6) after the platform's (`game_over`, `not_seated`,
`not_your_turn`, `stale_step`). `pick_invalid` belongs to the step-by-step unit selection this
implementation defines (§4.4 leaves it open).
"""

from __future__ import annotations

from engines.contract import COMMON_CODES, IllegalMove

ERROR_CODES: dict[str, str] = {
    "game_over": "The game has ended.",
    "not_your_turn": "This seat is not asked to act now.",
    "already_submitted": "You already answered this simultaneous decision.",
    "unknown_move_type": "Unknown move type.",
    "malformed_move": "A field is missing, unknown or of the wrong type.",
    "wrong_decision": "This move is not accepted at the current decision.",
    "unknown_road": "No such road id.",
    "unknown_town": "No such town id.",
    "wrong_origin": "A repeated attack must come from the same town against the same target.",
    "trade_invalid": "Trade exactly 3 cards of one non-raft type (a cloud names no town).",
    "cards_not_in_hand": "You do not hold the named cards.",
    "not_own_town": "The town is not yours.",
    "units_not_present": "Those units are not in that town.",
    "too_many_attackers": "Attack with 1 or 2 units.",
    "road_not_here": "The road does not start at that town (or the two roads do not connect).",
    "road_is_water": "Trunks go on land roads only.",
    "no_trunk_held": "You hold no trunk.",
    "road_has_obstacle": "The road already has a trunk.",
    "no_cloud_held": "You hold no magic cloud.",
    "no_trunk_on_road": "There is no trunk on this road.",
    "road_has_trunk": "A trunk blocks this road.",
    "double_move_invalid": "Two roads must be connected, of one terrain, and not return to "
                           "the origin.",
    "path_through_enemy": "The middle town belongs to an enemy.",
    "target_enemy": "Use `attack` to enter an enemy town.",
    "target_not_enemy": "The target holds no enemy units.",
    "unit_terrain_forbidden": "That unit cannot use this terrain.",
    "wrong_payment": "The cards are not exactly the cost of this movement or attack.",
    "supply_empty": "No such unit (or cloud) is left in the supply.",
    "unit_limit": "You already have 20 units.",
    "placement_invalid": "The placement does not match your towns or units.",
    "capital_invalid": "The capital must be one of your towns.",
    "casualties_invalid": "Choose exactly the lost number of units from that town.",
    "pick_invalid": "That unit cannot join this movement or attack (none left in the town, "
                    "terrain, or cards to pay).",
    **COMMON_CODES,
}


def fail(code: str, detail: str | None = None) -> IllegalMove:
    """The `IllegalMove` of `code`, with a specific message where one is given."""
    return IllegalMove(code, detail or ERROR_CODES[code])
