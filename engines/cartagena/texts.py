"""Cartagena's error codes with one line each (spec §5.7), and the `IllegalMove` they raise."""

from __future__ import annotations

from engines.contract import IllegalMove

MESSAGES: dict[str, str] = {
    "game_over": "The game has ended.",
    "not_your_turn": "This seat is not the one to act now.",
    "unknown_move_type": "Unknown move type.",
    "malformed_move": "A field is missing or invalid.",
    "decision_pending": "Another decision is expected now.",
    "variant_not_enabled": "That variant is not enabled in this game (sail, spell).",
    "invalid_seat": "No such seat in the game.",
    "card_not_in_hand": "You do not hold that card.",
    "duplicate_card": "The same card is named twice.",
    "no_pirate_there": "No pirate of that seat at that location.",
    "back_not_allowed": "Moving back is off in this part of the route.",
    "morgan_not_allowed": "Morgan is off in this part of the route.",
    "morgan_own_pirate": "Morgan moves another player's pirate.",
    "pirate_at_finish": "A pirate at the end cannot move forward.",
    "ship_not_at_tortuga": "The ship is at Cartagena: its pirates cannot move forward.",
    "ship_not_at_cartagena": "The ship is at Tortuga: it cannot be boarded.",
    "ship_crew_limit": "At most 3 pirates of a colour may be aboard.",
    "cannot_move_back_from_ship": "The ship is at Tortuga: its pirates cannot move back.",
    "no_square_behind": "No square with 1 or 2 pirates behind.",
    "sail_needs_pirate_aboard": "You need a pirate aboard to sail to Tortuga.",
    "sail_needs_pirate_in_tunnel": "You need a pirate in the tunnel or the prison to sail "
                                   "back.",
    "end_turn_too_early": "Take at least one action first.",
    "pass_after_action": "Pass only before your first action.",
    "pass_hand_not_empty": "Pass only with an empty hand.",
    "discard_wrong_count": "Discard at least 1 card and no more than you still owe.",
    "spell_card_count": "Wrong number of cards for this spell.",
    "spell_card_mismatch": "The cards do not fit the spell (the parrot needs 2 parrots).",
    "invalid_wild_symbol": "The wild symbol must be a symbol other than the parrot.",
    "pistol_bad_target": "The pistol's target must be another seat still in the game.",
    "pistol_target_empty": "The target has no cards.",
    "not_in_target_hand": "That card is not in the target's hand.",
    "hook_needs_two_pirates": "You need two of your pirates at that location.",
    "no_chest_here": "There is no chest token on that square.",
    "not_a_drawn_card": "That card was not drawn for this spell.",
    "rum_bad_split": "Keep 2 and give 1 to each other seat, each drawn card once.",
    "lantern_bad_split": "Keep 1 and return all the other drawn cards.",
}


def fail(code: str, detail: str = "") -> IllegalMove:
    return IllegalMove(code, f"{MESSAGES[code]} {detail}".strip())
