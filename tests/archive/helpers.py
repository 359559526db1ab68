"""A finished game with something of everything, and every read a client can make of it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from service.storage.keys import game_key
from service.storage.store import Store
from tests.api.helpers import post_together, view
from tests.ops.helpers import play_duel
from tests.players import TestPlayer


@dataclass
class Finished:
    """A finished Duel: its id, players by seat, and the envelopes posted (to post again)."""

    gid: str
    players: dict[int, TestPlayer]
    posted: list[dict[str, Any]] = field(default_factory=list)


def finished_duel(client: Any, run_jobs: Any, names: tuple[str, ...] = ("ann", "bob"),
                  moves: int = 4) -> Finished:
    """A Duel with its seats drawn (an audited draw), setups, a few moves, one move rejected
    (two posted for one step), a resignation."""
    gid, players = play_duel(client, run_jobs, moves=moves, names=names,
                             options={"army": "duel"})
    game = Finished(gid, players)
    seat = client.get(f"/v1/games/{gid}").get_json()["to_act"][0]
    v = view(client, gid, players[seat])
    # the second names a step the first closes: rejected
    envs = [players[seat].envelope(gid, seat, v["step"], move) for move in v["legal_moves"][:2]]
    post_together(client, envs)
    game.posted += envs
    run_jobs()
    resign = players[1].envelope(gid, 1, view(client, gid, players[1])["step"],
                                 {"type": "resign"})
    assert client.post(f"/v1/games/{gid}/moves", json=resign).status_code == 202
    game.posted.append(resign)
    run_jobs()
    summary = client.get(f"/v1/games/{gid}").get_json()
    assert summary["status"] == "finished", summary
    return game


def every_read(client: Any, game: Finished) -> dict[str, tuple[int, bytes]]:
    """Every answer a client can get about the finished game: (status, body bytes) by name."""
    gid, players = game.gid, game.players
    who: dict[str, dict[str, str]] = {"spectator": {}}
    who.update({f"seat {s}": p.auth for s, p in players.items()})
    got: dict[str, tuple[int, bytes]] = {}

    def get(name: str, path: str, headers: dict[str, str] | None = None) -> Any:
        resp = client.get(path, headers=headers or {})
        got[name] = (resp.status_code, resp.data)
        return resp

    get("summary", f"/v1/games/{gid}")
    get("audit", f"/v1/games/{gid}/audit")
    get("record", f"/v1/games/{gid}/record")
    head = len(client.get(f"/v1/games/{gid}/audit").get_json()["entries"])
    for seq in range(0, head + 2):  # and one before, one past the end: 404s
        get(f"move {seq}", f"/v1/games/{gid}/moves/{seq}")
    for name, auth in who.items():
        get(f"view, {name}", f"/v1/games/{gid}/view", auth)
        get(f"views batch, {name}", f"/v1/views?game={gid}&game=g_nosuchgame", auth)
        cursor = "0"
        for page in range(100):  # a few events a page, to the end
            body = get(f"events {page}, {name}",
                       f"/v1/games/{gid}/events?limit=3&cursor={cursor}", auth).get_json()
            if not body["events"]:
                break
            cursor = body["next"]
    for seat, player in players.items():
        get(f"mail settings, seat {seat}", f"/v1/games/{gid}/mail", player.auth)
        for query in ("", "?status=finished", "?limit=1", "?status=active", "?turn=mine"):
            get(f"my games{query}, seat {seat}", f"/v1/players/me/games{query}", player.auth)
    for n, env in enumerate(game.posted):  # the same envelope again: the move's status
        resp = client.post(f"/v1/games/{gid}/moves", json=env)
        got[f"post again {n}"] = (resp.status_code, resp.data)
    late = players[0].envelope(gid, 0, view(client, gid, players[0])["step"],
                               {"type": "resign"})
    for path, body in ((f"/v1/games/{gid}/moves", late), ("/v1/moves", {"envelopes": [late]})):
        resp = client.post(path, json=body)
        got[f"late move {path}"] = (resp.status_code, resp.data)
    joiner = TestPlayer("late").register(client)
    resp = client.post(f"/v1/games/{gid}/join", json=joiner.join_body(gid), headers=joiner.auth)
    got["join"] = (resp.status_code, resp.data)
    return got


def game_keys(store: Store, gid: str) -> dict[str, Any]:
    """What Redis holds under the game's hash tag: key -> its type."""
    return {k: store.r.type(k) for k in store.r.scan_iter(match=game_key(gid, "*"))}
