"""CPU time of a benchmark's own processes, by role, over a measured window (Linux `/proc`).

`bench.e2e --cpu` reports where a move's CPU goes on the whole machine: the web processes, the
workers, Redis, the load generators (the observer included) and everything else on the machine
(other people's work, the kernel's own threads). Every process of a run descends from the
benchmark's own process, so the roles are found by walking the process tree and reading each
command line; the machine's total comes from `/proc/stat`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass

TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
#: (role, a substring of the command line), first match wins
ROLES = (("web", "service.cli web"), ("worker", "service.cli worker"),
         ("stream", "service.cli stream"), ("redis", "redis-server"), ("load", "multiprocessing"))


def _read(path: str) -> str:
    try:
        with open(path, "rb") as f:
            return f.read().decode(errors="replace")
    except OSError:  # the process has exited
        return ""


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            stat = _read(f"/proc/{name}/stat")
            if stat:
                ppid = int(stat.rpartition(")")[2].split()[1])
                tree.setdefault(ppid, []).append(int(name))
    return tree


def _descendants(root: int) -> Iterable[int]:
    tree = _children()
    todo = list(tree.get(root, ()))
    while todo:
        pid = todo.pop()
        yield pid
        todo.extend(tree.get(pid, ()))


def _role(pid: int) -> str | None:
    cmdline = _read(f"/proc/{pid}/cmdline").replace("\0", " ")
    return next((role for role, mark in ROLES if mark in cmdline), None)


def _ticks(pid: int) -> tuple[int, int]:
    """(user, system) time of one process (its own threads; not its waited-for children)."""
    stat = _read(f"/proc/{pid}/stat")
    if not stat:
        return 0, 0
    fields = stat.rpartition(")")[2].split()
    return int(fields[11]), int(fields[12])


def _machine() -> tuple[int, int]:
    """(busy ticks, all ticks) of the whole machine so far: user, nice, system, irq, softirq
    and steal count as busy; idle and iowait do not."""
    values = [int(v) for v in _read("/proc/stat").splitlines()[0].split()[1:9]]
    user, nice, system, idle, iowait, irq, softirq, steal = values
    return user + nice + system + irq + softirq + steal, sum(values)


@dataclass
class Snapshot:
    """CPU ticks by role of the descendants of one process ((user, system) each), and the
    machine's, at one time."""

    by_role: dict[str, tuple[int, int]]
    machine_busy: int
    machine_all: int


def snapshot(root: int | None = None) -> Snapshot:
    by_pid = {pid: _role(pid) for pid in _descendants(root or os.getpid())}
    by_role: dict[str, tuple[int, int]] = {}
    for pid, role in by_pid.items():
        if role is not None:
            user, system = _ticks(pid)
            was = by_role.get(role, (0, 0))
            by_role[role] = (was[0] + user, was[1] + system)
    busy, total = _machine()
    return Snapshot(by_role, busy, total)


def per_move(before: Snapshot, after: Snapshot, moves: int) -> dict[str, float]:
    """Milliseconds of CPU per move by role (`<role> sys`: its system part), `other` for the
    rest of the machine's busy time, `all` for the machine's. A process that started or ended
    within the window counts only the part seen at both ends (the roles here live through a
    phase)."""
    if moves <= 0:
        return {}
    ms = 1000 / TICK / moves
    out: dict[str, float] = {}
    system: dict[str, float] = {}
    for role, _ in ROLES:
        user0, sys0 = before.by_role.get(role, (0, 0))
        user1, sys1 = after.by_role.get(role, (0, 0))
        out[role] = (user1 - user0 + sys1 - sys0) * ms
        system[f"{role} sys"] = (sys1 - sys0) * ms
    cores = os.cpu_count() or 1
    # /proc/stat's first line sums every core's ticks
    busy = (after.machine_busy - before.machine_busy) * ms
    out["other"] = max(0.0, busy - sum(out.values()))
    out["all"] = busy
    out["cores_busy"] = (after.machine_busy - before.machine_busy) / max(
        1, after.machine_all - before.machine_all) * cores
    return {**out, **system}


def describe(figures: dict[str, float]) -> str:
    if not figures:
        return "no moves"
    parts = [f"{role} {figures[role]:.2f} ({figures[role + ' sys']:.2f} sys)"
             for role, _ in ROLES] + [
        f"other {figures['other']:.2f}"]
    return (f"CPU ms per applied move: {', '.join(parts)}; all {figures['all']:.2f} "
            f"({figures['cores_busy']:.2f} cores busy)")
