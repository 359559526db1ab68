"""Störtebeker's error codes with one line each (spec §5), and the `IllegalMove` they raise."""

from __future__ import annotations

from engines.contract import IllegalMove

MESSAGES: dict[str, str] = {
    "malformed_move": "Not an object of a known move type with the required fields.",
    "game_over": "The game has ended.",
    "not_your_turn": "This seat is not the one to act now.",
    "wrong_decision": "This move type is not legal at the current decision.",
    "card_not_in_hand": "A named card is not in your hand.",
    "duplicate_card": "A card is named more than once.",
    "unknown_ship": "No such ship at sea.",
    "invalid_loot_choice": "That card is not a candidate for this die.",
    "ship_not_eligible": "Your provisions there are incomplete, or you boarded it this turn.",
    "provision_not_required": "This ship does not require that kind.",
    "provision_limit_exceeded": "You would hold more of that kind than the ship requires.",
    "too_many_pirates": "You would have more pirate cards than provision cards at that ship.",
    "exchange_discard_count": "An exchange discards 2 or 3 cards.",
    "exchange_take_count": "An exchange takes at most 2 cards.",
    "exchange_take_invalid": "That card is not in the discard pile, or this exchange "
                             "discarded it.",
    "cannon_needs_own_provision": "You have no provision card at that ship.",
    "no_new_pirates": "A counter-attack may not add pirate cards.",
    "completion_too_many": "A counter-attack adds at most 3 cards.",
    "completion_mismatch": "A counter-attack adds exactly your missing provisions.",
    "must_play_cards": "An empty play is allowed only when no card of yours has a legal use.",
    "wrong_card_count": "The card play uses exactly min(3, hand size) cards.",
}


def fail(code: str, detail: str = "") -> IllegalMove:
    return IllegalMove(code, f"{MESSAGES[code]} {detail}".strip())
