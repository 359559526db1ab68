"""The crash soak: random games over HTTP while workers, the web process and Redis are killed.

Phases (each bounded in time):
1. start Redis (AOF, `appendfsync always`), `parley web` and `workers` RQ workers on loopback
   (with `store_cluster`, the game store on a Redis Cluster of three masters beside it);
2. play: `concurrency` client threads each create random games (Stratego Duel, Totohu with 2
   or 3 seats) and play them with moves chosen from `legal_moves`, signed by the seat's key;
   meanwhile the chaos loop kill -9s a worker, the web process or Redis at random moments and
   starts it again (Redis from its AOF, on the same port with the same data directory); with
   `store_cluster`, a node of the store's cluster too;
3. recover: chaos stops, anything that died is started again, and every game must drain (no
   entry left queued) within `recovery` seconds; games still holding queued moves are *stuck*;
4. finish: every running game is ended by resignations, so that its record is published;
5. check every game: its record (`GET /record`) passes the offline verifier
(protocol/parley_protocol/verify.py:
   signatures, receipt chain, dice and a replay of the move log that must reproduce every
   state hash and event), with every receipt a client was given; each acknowledged move is in
   the log with the digest of the envelope that was acknowledged, and resolved; no move is in
   the log or the state hashes twice; the state stored in Redis is the replay's final state.
"""

from __future__ import annotations

import hashlib
import random
import shutil
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from parley_protocol.verify import verify_bundle

from service.storage.keys import game_key
from service.storage.state_packing import unpack_state
from tests.soak.cluster import Cluster
from tests.soak.play import Client, Http, SoakGame, Stats, Unreachable

CHAOS = ("worker", "web", "redis")
#: what the chaos kills with the store on a cluster: a node of it too, as often as Redis
CLUSTER_CHAOS = (*CHAOS, "store")


@dataclass
class Options:
    minutes: float = 10
    concurrency: int = 8
    workers: int = 3
    max_games: int = 500  # bound on games created in all
    max_moves: int = 2000  # bound on moves per game
    chaos_gap: tuple[float, float] = (3.0, 8.0)  # seconds between two kills
    recovery: float = 120  # seconds the system gets to drain after the chaos
    seed: int | None = None
    progress_every: float = 10
    keep: bool = False  # keep the data directory (logs, AOF) even when everything passed
    store_cluster: bool = False  # the game store on a Redis Cluster of three masters


@dataclass
class Report:
    """The soak's figures; `failures()` lists every broken invariant."""

    seed: int
    seconds: float = 0
    games: int = 0
    games_finished_in_play: int = 0
    games_resigned: int = 0
    acknowledged: int = 0
    applied: int = 0
    rejected: int = 0
    lost: int = 0
    applied_twice: int = 0
    stuck: int = 0
    restarts: dict[str, int] = field(default_factory=dict)
    revived: int = 0
    stalled: list[str] = field(default_factory=list)
    unverified: list[str] = field(default_factory=list)
    state_mismatches: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    client: Counter[str] = field(default_factory=Counter)
    data_dir: str = ""

    def failures(self) -> list[str]:
        out = []
        if self.acknowledged == 0:
            out.append("no move was acknowledged: the soak tested nothing")
        if self.lost:
            out.append(f"{self.lost} acknowledged moves lost")
        if self.applied_twice:
            out.append(f"{self.applied_twice} moves applied twice")
        if self.stuck:
            out.append(f"{self.stuck} games stuck with pending moves after recovery")
        if self.client["http_500"]:  # a fault of a Redis or a store node is a 503, not a bug
            out.append(f"{self.client['http_500']} answers were 500 (the web's log names each "
                       "error); a Redis or a store node away must answer 503")
        if self.client["ack_collisions"]:
            out.append(f"{self.client['ack_collisions']} different envelopes acknowledged "
                       "under one move id")
        out += [f"stalled: {s}" for s in self.stalled]
        out += [f"not verified: {s}" for s in self.unverified]
        out += [f"state differs from the replay: {s}" for s in self.state_mismatches]
        out += self.problems
        return out

    @property
    def ok(self) -> bool:
        return not self.failures()

    def render(self) -> str:
        r = self.restarts
        survived = sum(r.values())
        retries = {k: v for k, v in sorted(self.client.items())
                   if k.startswith(("http_", "connection_"))}
        refused = {k[8:]: v for k, v in sorted(self.client.items()) if k.startswith("refused_")}
        lines = [
            f"soak finished in {self.seconds:.0f} s (seed {self.seed})",
            f"  games                     {self.games} ({self.games_finished_in_play} played "
            f"to the end, {self.games_resigned} ended by resignation)",
            f"  moves acknowledged (202)  {self.acknowledged}",
            f"  applied                   {self.applied}",
            f"  rejected                  {self.rejected}",
            f"  lost                      {self.lost}",
            f"  applied twice             {self.applied_twice}",
            f"  stuck after recovery      {self.stuck}",
            f"  restarts survived         {survived} (worker {r.get('worker', 0)}, web "
            f"{r.get('web', 0)}, redis {r.get('redis', 0)}, store node {r.get('store', 0)}; "
            f"{self.revived} exits restarted)",
            f"  idempotent re-posts       {self.client['idempotent_reposts']}",
            f"  refused at once           {refused or 0}",
            f"  client retries            {retries or 0}",
            f"  records verified          {self.games - len(self.unverified)} of {self.games}",
        ]
        failures = self.failures()
        lines += [f"FAIL {f}" for f in failures] or ["OK: every invariant holds"]
        if failures or self.data_dir:
            lines.append(f"  logs and AOF in {self.data_dir}")
        return "\n".join(lines)


def run_soak(opts: Options, out: TextIO = sys.stdout) -> Report:
    seed = opts.seed if opts.seed is not None else random.randrange(2**32)
    report = Report(seed=seed)
    data = Path(tempfile.mkdtemp(prefix="parley-soak-"))
    t0 = time.monotonic()

    def say(text: str) -> None:
        print(f"[{time.monotonic() - t0:6.1f}s] {text}", file=out, flush=True)

    cluster = Cluster(data, workers=opts.workers, store_cluster=opts.store_cluster)
    say(f"starting Redis (AOF, appendfsync always), "
        f"{'a 3-master Redis Cluster for the store, ' if opts.store_cluster else ''}"
        f"web and {opts.workers} workers in {data}")
    cluster.start()
    try:
        _soak(cluster, opts, report, seed, say)
    finally:
        cluster.stop()
        report.seconds = time.monotonic() - t0
        report.restarts = dict(cluster.restarts)
        if report.ok and not opts.keep:
            shutil.rmtree(data, ignore_errors=True)
        else:
            report.data_dir = str(data)
    return report


def _soak(cluster: Cluster, opts: Options, report: Report, seed: int, say: Any) -> None:
    stats = Stats()
    games: list[SoakGame] = []
    games_lock = threading.Lock()
    stop = threading.Event()
    created = iter(range(opts.max_games))

    def client_thread(i: int) -> None:
        client = Client(Http(cluster.url, stats), stats, random.Random(seed * 1000 + i),
                        settle=opts.recovery, stop=stop)
        while not stop.is_set():
            with games_lock:
                n = next(created, None)
            if n is None:
                return
            try:
                game = client.new_game(n)
                if game is None:
                    continue
                with games_lock:
                    games.append(game)
                client.play(game, opts.max_moves)
            except Exception as err:  # a broken answer: record it, let the others go on
                report.problems.append(f"client {i}: {type(err).__name__}: {err}")
                say(f"client {i} stopped: {type(err).__name__}: {err}")
                return

    threads = [threading.Thread(target=client_thread, args=(i,), daemon=True)
               for i in range(opts.concurrency)]
    for t in threads:
        t.start()
    say(f"playing for {opts.minutes:g} min with {opts.concurrency} clients")
    _chaos(cluster, opts, random.Random(seed), threads, stats, report, games, say)

    stop.set()
    for t in threads:
        t.join(opts.recovery + 30)
    report.revived += len(cluster.revive())
    report.client = Counter(stats.counts)
    report.games = len(games)
    report.games_finished_in_play = stats["games_finished"]
    say(f"chaos over; {len(games)} games, {stats['acknowledged']} moves acknowledged; "
        f"waiting up to {opts.recovery:.0f} s for every game to drain")
    report.stuck = _wait_drained(cluster, games, opts.recovery, say)

    say("ending running games by resignation")
    finisher = Client(Http(cluster.url, stats), stats, random.Random(seed), settle=30)
    r = cluster.redis()
    for game in games:
        if _queued(r, game.id):
            continue  # stuck: counted above; a resignation would only queue behind it
        try:
            finisher.finish(game)
        except Unreachable as err:
            report.problems.append(f"{game.id}: resigning: {err}")
    report.games_resigned = sum(1 for g in games if g.resigned)
    _wait_drained(cluster, games, opts.recovery, say)
    say("checking every game's record")
    _check(cluster, finisher.http, games, report)
    report.client = Counter(stats.counts)
    report.stalled = [f"{g.id}: {g.stalled}" for g in games if g.stalled]


def _chaos(cluster: Cluster, opts: Options, chooser: random.Random,
           threads: list[threading.Thread], stats: Stats, report: Report,
           games: list[SoakGame], say: Any) -> None:
    """Kill things at random moments until the play time is over; print progress."""
    end = time.monotonic() + opts.minutes * 60
    kinds = CLUSTER_CHAOS if opts.store_cluster else CHAOS
    plan = list(kinds)  # every kind at least once (past the play time if need be), then at random
    chooser.shuffle(plan)
    next_kill = time.monotonic() + chooser.uniform(*opts.chaos_gap)
    next_progress = time.monotonic() + opts.progress_every
    while time.monotonic() < end or plan:
        if not any(t.is_alive() for t in threads):  # every client is done (max_games)
            break
        now = time.monotonic()
        if now >= next_kill:
            kind = plan.pop(0) if plan else chooser.choices(
                kinds, weights=(3, 1, 1, 1)[:len(kinds)])[0]
            if kind == "worker":
                cluster.kill_worker(chooser)
            elif kind == "web":
                cluster.restart_web()
            elif kind == "store":
                cluster.restart_store_node(chooser, down=chooser.uniform(0, 1.5))
            else:
                cluster.restart_redis(down=chooser.uniform(0, 1.5))
            say(f"kill -9 {kind}: restarted")
            next_kill = time.monotonic() + chooser.uniform(*opts.chaos_gap)
        revived = cluster.revive()
        if revived:
            report.revived += len(revived)
            say(f"restarted after exit: {', '.join(revived)}")
        if now >= next_progress:
            r = cluster.restarts
            say(f"games {len(games)} ({stats['games_finished']} finished) · acknowledged "
                f"{stats['acknowledged']}, applied {stats['seen_applied']}, rejected "
                f"{stats['seen_rejected']} · kills worker {r['worker']} web {r['web']} "
                f"redis {r['redis']} store {r['store']} · retries "
                f"{stats['connection_errors']} conn, "
                f"{sum(v for k, v in stats.counts.items() if k.startswith('http_'))} http")
            next_progress = now + opts.progress_every
        time.sleep(0.1)


def _wait_drained(cluster: Cluster, games: list[SoakGame], wait: float, say: Any) -> int:
    """Wait until no game has a queued entry; the number of games that still have one."""
    r = cluster.redis()
    deadline = time.monotonic() + wait
    while True:
        cluster.revive()
        try:
            busy = [g.id for g in games if _queued(r, g.id)]
        except Exception:  # Redis restarting after an exit: ask again
            busy = [g.id for g in games]
        if not busy or time.monotonic() > deadline:
            if busy:
                say(f"{len(busy)} games still have queued moves: {busy[:5]}")
            return len(busy)
        time.sleep(0.25)


def _queued(r: Any, gid: str) -> bool:
    meta = r.hgetall(game_key(gid, "meta"))
    return int(meta.get("applied", 0)) < int(meta.get("head", 0)) or meta.get("status") == "full"


def _check(cluster: Cluster, http: Http, games: list[SoakGame], report: Report) -> None:
    r = cluster.redis()
    server_key = http.get("/v1/server-key").json()["public_key"]
    for game in games:
        report.acknowledged += len(game.acks)
        resp = http.get(f"/v1/games/{game.id}/record")
        if resp.status_code != 200:
            report.unverified.append(f"{game.id}: GET /record answered {resp.status_code} "
                                     f"{resp.json().get('code')}")
            entries = http.get(f"/v1/games/{game.id}/audit").json()["entries"]
            _count(game, entries, report)
            continue
        record = resp.json()
        audit = record["audit"]
        _count(game, audit["entries"], report)
        result = verify_bundle(record, server_key=server_key,
                               receipts=[a.receipt for a in game.acks.values()])
        if not result.ok:
            report.unverified.append(f"{game.id}: {result.failure}")
        seqs = [h["seq"] for h in audit["state_hashes"]]
        digests = [e["digest"] for e in audit["entries"]]
        report.applied_twice += (len(seqs) - len(set(seqs))) + (len(digests) - len(set(digests)))
        stored = unpack_state(r.get(game_key(game.id, "state"))) or ""
        digest = hashlib.sha256(stored.encode("utf-8")).hexdigest()
        if not audit["state_hashes"] or audit["state_hashes"][-1]["hash"] != digest:
            report.state_mismatches.append(f"{game.id}: the stored state's hash {digest[:12]} "
                                           "is not the replay's last state hash")


def _count(game: SoakGame, entries: list[dict[str, Any]], report: Report) -> None:
    """Each acknowledged move: in the log under its id with its digest, and resolved."""
    for seq, ack in sorted(game.acks.items()):
        entry = entries[seq - 1] if 0 < seq <= len(entries) else None
        if entry is None or entry["seq"] != seq or entry["digest"] != ack.digest:
            report.lost += 1
        elif entry["status"] == "applied":
            report.applied += 1
        elif entry["status"] == "rejected":
            report.rejected += 1
        else:
            report.lost += 1  # still queued after recovery: acknowledged but never resolved
