"""Every error code the race game raises, with one line each (spec §5.6; contract v2 point 13).

The war game's codes (`engines.elfenland.war.ERROR_CODES`) are merged in by the engine."""

from __future__ import annotations

from collections.abc import Mapping

from engines.contract import COMMON_CODES

RACE_CODES: Mapping[str, str] = {
    **COMMON_CODES,
    "game_over": "The game has ended.",
    "not_your_turn": "This seat is not asked to act now (or has resigned).",
    "already_submitted": "You already answered this simultaneous decision.",
    "unknown_move_type": "Unknown move type.",
    "malformed_move": "A field is missing, unknown or of the wrong type.",
    "wrong_decision": "This move is not accepted at the current decision.",
    "variant_not_enabled": "This move needs a variant that is off.",
    "unknown_road": "No road has that id.",
    "cards_not_in_hand": "You do not hold the named cards.",
    "counter_not_held": "You hold no such counter (face up or face down as named).",
    "counter_not_face_up": "That counter is not in the face-up display.",
    "pile_empty": "The face-down counter pile is empty.",
    "counter_limit": "You would hold more than 5 counters.",
    "card_not_face_up": "That card is not in the face-up card display (quality-of-choice).",
    "deck_empty": "The travel deck is empty.",
    "draft_quota": "You already took your cards (or 3 counters) this round.",
    "road_is_water": "Counters and obstacles go on land roads only.",
    "road_occupied": "The road already carries a counter or a bridge.",
    "terrain_forbidden": "That counter cannot be placed on this terrain.",
    "obstacle_used": "Your obstacle is not available.",
    "obstacle_needs_transport": "An obstacle needs a road with a transport counter (or a "
                                "bridge).",
    "road_has_obstacle": "The road already has an obstacle.",
    "obstacle_round_forbidden": "Obstacles may be placed only in rounds 1-3 "
                                "(trunk-first-three-rounds).",
    "obstacle_round_limit": "This round's obstacle limit is reached (trunk-round-limit).",
    "bad_side": "'side' is missing, superfluous or not an end of the road (station-street).",
    "no_substitution_tokens": "You have no substitution token left.",
    "nothing_to_substitute": "The road carries no transport counter.",
    "road_already_substituted": "A token was already used on this road this round.",
    "empty_path": "A travel needs at least one step.",
    "one_step_only": "Exactly one step per turn (thief).",
    "bridge_ends_move": "A bridge crossing ends the move; no step may follow it.",
    "road_not_here": "The road does not start at your position (or the chain is broken).",
    "no_transport": "This land road carries no transport counter.",
    "caravan_not_allowed": "No caravan here (water, a bridge, or no-caravan).",
    "caravan_wrong_count": "A caravan costs 3 cards, 4 with an obstacle.",
    "ferryman_not_here": "The ferryman serves only Mare Nebulae.",
    "chain_invalid": "Non-stop: 2 or more distinct connected roads, all with counters of one "
                     "type or all rivers.",
    "wrong_payment": "The cards are not exactly the cost of this step.",
    "discard_wrong_count": "Discard exactly the required number of cards.",
    "keep_invalid": "'keep' is missing, superfluous or not a counter you hold.",
    "invalid_victim": "No boot of that seat with cards is here, or it is you.",
    "exchange_invalid": "Give exactly one held card to each neighbour.",
    "card_not_in_centre": "That card is not in the centre.",
}
