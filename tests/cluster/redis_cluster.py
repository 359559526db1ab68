"""A real Redis Cluster of the bundled binary on loopback: N masters, each with R replicas
(none by default).

Used by the cluster tests (tests/cluster/conftest.py), the crash soak's cluster mode
(`python -m tests.soak --cluster`) and the end-to-end benchmark (`--store cluster`). The
bundled redis-server (6.2) has no `CLUSTER ADDSLOTSRANGE` and `redis-cli --cluster create` is
not needed: each node is given its third of the slots with `CLUSTER ADDSLOTS`, the nodes meet,
and the cluster is ready once every node reports `cluster_state:ok` and knows every slot. Replicas
meet the masters and follow theirs with `CLUSTER REPLICATE`; a replica whose master is away for
the node timeout is promoted by the others (a failover).

A node listens on its port and on port + 10000 (the cluster bus), so ports are drawn with both
free and both below the ephemeral range. A node restarted on its port with its directory
rejoins by itself (`nodes.conf` and the AOF are there).
"""

from __future__ import annotations

import random
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import redis

from service.ops.embedded_redis import start_redis, stop_redis
from service.ops.ports import ephemeral_floor

#: the slots of a cluster
SLOTS = 16384
#: the cluster bus listens this far above a node's port
BUS_OFFSET = 10000
#: a node unreachable this long is failed by the others (short: a restarted node rejoins fast)
NODE_TIMEOUT_MS = 2000


def _free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def cluster_ports(count: int, low: int = 10000, high: int | None = None) -> list[int]:
    """`count` ports in [low, high) whose bus ports (+10000) are free too; by default both
    below the ephemeral range, where no outgoing connection takes them while a node is down."""
    high = high or ephemeral_floor() - BUS_OFFSET
    chooser = random.Random()
    ports: list[int] = []
    for _ in range(10000):
        port = chooser.randrange(low, high)
        taken = {p for q in ports for p in (q, q + BUS_OFFSET)}
        if port in taken or port + BUS_OFFSET in taken:
            continue
        if _free(port) and _free(port + BUS_OFFSET):
            ports.append(port)
            if len(ports) == count:
                return ports
    raise RuntimeError("no free ports for a Redis Cluster")


@dataclass
class LocalCluster:
    """`masters` redis-server processes in `data`, one directory each, forming one cluster."""

    data: Path
    masters: int = 3
    appendfsync: str = "no"
    #: replicas of each master: nodes masters.. follow master (i - masters) % masters
    replicas: int = 0
    ports: list[int] = field(default_factory=list)
    procs: list[subprocess.Popen | None] = field(default_factory=list)

    @property
    def nodes(self) -> int:
        return self.masters * (1 + self.replicas)

    @property
    def url(self) -> str:
        """A startup node's URL: the cluster client finds the others from it."""
        return f"redis://127.0.0.1:{self.ports[0]}/0"

    def node(self, i: int) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=self.ports[i], decode_responses=True,
                           socket_timeout=5)

    def start(self, wait: float = 30) -> LocalCluster:
        self.ports = self.ports or cluster_ports(self.nodes)
        self.procs = [None] * self.nodes
        try:
            for i in range(self.nodes):
                self.start_node(i)
            self._form(wait)
        except BaseException:
            self.stop()
            raise
        return self

    def start_node(self, i: int) -> None:
        """Start (or restart from its directory: same port, same files) node `i`."""
        self.procs[i] = start_redis(
            self.data / f"node-{i}", self.ports[i], appendfsync=self.appendfsync,
            extra=["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                   "--cluster-node-timeout", str(NODE_TIMEOUT_MS),
                   "--cluster-require-full-coverage", "no"])

    def kill_node(self, i: int) -> None:
        """kill -9 node `i` (it is our child, in a session of its own)."""
        proc = self.procs[i]
        if proc is not None:
            proc.kill()
            proc.wait()

    def exited(self) -> list[int]:
        return [i for i, p in enumerate(self.procs) if p is None or p.poll() is not None]

    def _form(self, wait: float) -> None:
        share = -(-SLOTS // self.masters)
        for i in range(self.masters):
            slots = list(range(i * share, min((i + 1) * share, SLOTS)))
            for at in range(0, len(slots), 1000):
                self.node(i).execute_command("CLUSTER ADDSLOTS", *slots[at:at + 1000])
        for i in range(1, self.nodes):
            self.node(0).execute_command("CLUSTER MEET", "127.0.0.1", self.ports[i])
        if self.replicas:
            self._wait_known(wait)
            for i in range(self.masters, self.nodes):
                master = self.node((i - self.masters) % self.masters).cluster("myid")
                self.node(i).execute_command("CLUSTER REPLICATE", master)
        self.wait_ok(wait)

    def _wait_known(self, wait: float) -> None:
        """Until every node knows every other (a replica can follow only a master it knows)."""
        deadline = time.monotonic() + wait
        while any(int(self.node(i).cluster("info")["cluster_known_nodes"]) < self.nodes
                  for i in range(self.nodes)):
            if time.monotonic() > deadline:
                raise RuntimeError(f"the nodes in {self.data} did not meet in {wait} s")
            time.sleep(0.05)

    def wait_ok(self, wait: float = 30) -> None:
        """Until every node running sees every node and serves every slot, and each replica
        has its master's data."""
        deadline = time.monotonic() + wait
        while True:
            try:
                up = [i for i in range(self.nodes) if i not in self.exited()]
                infos = [self.node(i).cluster("info") for i in up]
                if all(info["cluster_state"] == "ok"
                       and int(info["cluster_known_nodes"]) == self.nodes
                       and int(info["cluster_slots_ok"]) == SLOTS for info in infos) \
                        and self._replicas_synced(up):
                    return
            except redis.ConnectionError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"the Redis Cluster in {self.data} did not form in {wait} s")
            time.sleep(0.05)

    def _replicas_synced(self, up: list[int]) -> bool:
        for i in up:
            info = self.node(i).info("replication")
            if info["role"] == "slave" and info.get("master_link_status") != "up":
                return False
        return True

    def master_of(self, key: str) -> int:
        """The node serving `key`'s slot now (after a failover, a former replica), as a
        running node sees it."""
        live = next(i for i in range(self.nodes) if i not in self.exited())
        slot = int(self.node(live).execute_command("CLUSTER KEYSLOT", key))
        for start, end, master, *_ in self.node(live).execute_command("CLUSTER SLOTS"):
            if int(start) <= slot <= int(end):
                return self.ports.index(int(master[1]))
        raise RuntimeError(f"no node serves slot {slot}")

    def flush(self) -> None:
        for i in range(self.masters):
            self.node(i).flushall()

    def stop(self) -> None:
        """SIGTERM every node: each flushes its AOF and exits."""
        for proc in self.procs:
            if proc is not None:
                stop_redis(proc)

    def __enter__(self) -> LocalCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
