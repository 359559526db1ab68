"""A foreseen move applied by the web process itself, in the move's only round trip.

DESIGN.md's move flow has the web process append a move and a worker apply it. For a move
checked against a foreseen state (`service.domain.foresight`), the web process knows exactly
what the worker would compute: the store proves the state (its digest), nothing waits before
the move, and a move that draws nothing has one outcome, which the process has to compute
anyway to foresee the next move. So it computes the whole resolution as a worker would
(`game.plan_resolve`, with a random source that refuses every draw) and the SETTLE_FORESEEN
script appends the entry and writes that resolution in one step, with the live feeds'
entries and the notices. The worker's hops (its wake, its read, its commit) leave the move's
path; every guarantee stays: the move is checked, signed, receipted, hashed into the chain,
applied in order (the script refuses unless `applied` = `head` = the foreseen seq) and in the
AOF before the 202.

Everything else still goes to a worker as DESIGN.md says: every move of a game with clocks
(they read vacations and time given, which may have changed since the state was foreseen),
a move that draws (its outcome
needs the game's secret seed, which web processes never read), a move that ends the game
(its archive is scheduled by the notices' flush), a move the state refuses, every move of a
game the process did not foresee. A notice that may lead to a delivery (a player with mail or
webhooks, a deadline) wakes the game, so that a worker dispatches it; the others are not
recorded, since a flush would only drop them (`notices.reach`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import orjson

from service.domain import live_feed, notices
from service.domain.foresight import NO_DRAWS, Foreseen, WouldDraw
from service.domain.game import RecordedRng, plan_resolve
from service.domain.game_model import Resolution
from service.domain.kept_states import Kept

log = logging.getLogger(__name__)


@dataclass
class Settlement:
    """A foreseen move's resolution, and what its script writes beside it."""

    resolution: Resolution
    #: the game's seated players, by seat
    players: list[str]
    #: each seat's live-feed entries (written for the players listening)
    feeds: list[list[str]]
    #: (seat, `notices.reach`, notice) per notice
    notices: list[tuple[int, str, str]]

    def foreseen(self, chain_head: str) -> Foreseen:
        """The state the settled move leads to, foreseen for the game's next move."""
        r = self.resolution
        seq = r.last
        assert r.item is not None  # a settled move is applied
        return Foreseen(r.game, r.listing_state(), seq, r.item, chain_head, r.commit.state)


def _no_draws(source: bytes) -> RecordedRng:
    return NO_DRAWS


def plan_settlement(foreseen: Foreseen, payload: dict[str, Any], canonical_env: str
                    ) -> Settlement | None:
    """The resolution of a move (its envelope's `payload`, stored as `canonical_env`) as the
    entry after the foreseen one, or None where a worker must apply it (it draws, ends the
    game, is refused, or the engine fails). `foreseen.state` is given away: applying the
    move changes it."""
    game = foreseen.game
    if game.platform.get("time_control"):
        return None  # its clocks read vacations and gifts the foreseen meta may not have
    seq = foreseen.seq + 1
    # the meta as the store holds it when the script's checks pass
    meta = {**game.raw, "status": "active", "applied": str(foreseen.seq), "head": str(seq),
            "step": str(payload["step"])}
    kept = Kept(foreseen.item, foreseen.state_json, foreseen.state)
    try:
        planned = plan_resolve(game.id, (meta, None, [(seq, {"env": canonical_env})], 0, None),
                               kept, rng_for=_no_draws)
    except WouldDraw:
        return None
    except Exception:  # the worker meets it too, and decides
        log.debug("game %s: move %d not settled", game.id, seq, exc_info=True)
        return None
    if (not isinstance(planned, Resolution) or planned.commit.rejected
            or "result" in planned.commit.meta):
        return None
    players = [p for p in planned.game.players if p is not None]
    if len(players) != planned.game.seats:
        return None
    entries = live_feed.feed_entries([planned], set(players))
    told = []
    for raw in planned.commit.notices:
        notice = orjson.loads(raw)
        told.append((notice["seat"], notices.reach(notice), raw))
    return Settlement(planned, players, [entries.get(p, []) for p in players], told)
