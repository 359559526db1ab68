"""End of the race: scores, ranking and the result (spec §8.1).

Score = pieces collected, minus the distance (in roads of any terrain) from the boot to the
destination card with `destination`. Ranking: score, then (destination only) the smaller
distance, then more cards in hand; a full tie is a shared win. A resigned seat scores its pieces
but never wins (docs/rules/elfenland.md "Resigning").
"""

from __future__ import annotations

from collections import deque

from engines.contract import Event, Result, State
from engines.elfenland.race import state as S


def distance(st: State, src: str, dst: str) -> int:
    """The fewest roads of any terrain between two towns (§8.1)."""
    if src == dst:
        return 0
    b = S.the_board(st)
    seen = {src: 0}
    queue = deque([src])
    while queue:
        town = queue.popleft()
        for rid in b.roads_at[town]:
            other = b.roads[rid].other(town)
            if other not in seen:
                seen[other] = seen[town] + 1
                if other == dst:
                    return seen[other]
                queue.append(other)
    return len(b.towns)


def finish_game(st: State, events: list[Event], reason: str) -> None:
    """Score every seat, rank the active ones, and end the game."""
    n = st["n"]
    dests = st.get("destination")
    pieces = [len(st["collected"][s]) for s in range(n)]
    dist = [distance(st, st["boot"][s], dests[s]) if dests else 0 for s in range(n)]
    scores = [pieces[s] - dist[s] for s in range(n)]
    hands = [sum(st["hand"][s].values()) for s in range(n)]
    live = S.active(st)

    def key(s: int) -> tuple[int, int, int]:
        return (scores[s], -dist[s] if dests else 0, hands[s])
    best = max(key(s) for s in live)
    winners = [s for s in live if key(s) == best]
    st["result"] = {"winners": winners, "scores": {str(s): scores[s] for s in range(n)},
                    "reason": reason}
    st["phase"] = "over"
    st["dec"] = {"kind": "game_over", "to_act": []}
    st["pending"] = {}
    st["travel"] = None
    event: Event = {"type": "game_ended", "reason": reason, "winners": winners,
                    "scores": dict(st["result"]["scores"]), "pieces": pieces,
                    "hand_sizes": hands}
    if dests:
        event["destinations"] = list(dests)
        event["distances"] = dist
    events.append(event)


def result(st: State) -> Result | None:
    """None while the game runs, else winners, scores and reason."""
    res = st["result"]
    if res is None:
        return None
    return {"winners": list(res["winners"]), "scores": dict(res["scores"]),
            "reason": res["reason"]}
