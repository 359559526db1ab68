"""Refuse a port another server listens on, before anything starts serving.

On Linux each of granian's workers binds the web port with SO_REUSEPORT, and so would a second
`parley web` on the same port, another Parley's included: the kernel would split the requests
between two servers with different data. A bind without SO_REUSEPORT fails wherever any socket
listens on the port, one with SO_REUSEPORT too, so a probe bind tells a taken port before the
server starts (SO_REUSEADDR: a closed connection's TIME_WAIT does not count, a listener does).
Two servers starting in the same instant could both pass; one started before is always seen.
"""

from __future__ import annotations

import random
import socket
from pathlib import Path

from service.config import Config

#: where the kernel picks the local ports of outgoing connections (Linux's default if unknown)
_EPHEMERAL = Path("/proc/sys/net/ipv4/ip_local_port_range")


class PortTaken(RuntimeError):
    """A port to serve on is in use; the message names it and the setting to change."""


def ensure_free(host: str, port: int, setting: str) -> None:
    """Raise PortTaken if a socket listens on `host`:`port` (each address `host` names)."""
    for family, kind, proto, _, address in socket.getaddrinfo(host, port,
                                                             type=socket.SOCK_STREAM):
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(address)
            except OSError as err:
                raise PortTaken(
                    f"port {port} on {host} is already in use (another Parley, perhaps one "
                    f"left running, or another program). Stop that program or set {setting} "
                    f"to a free port.") from err


def served_ports(config: Config) -> dict[str, tuple[str, int, str]]:
    """The address each process of `parley run` serves, by name: host, port, setting."""
    return {
        "web": ("127.0.0.1", config.PORT, "PARLEY_PORT"),
        "stream": ("127.0.0.1", config.STREAM_PORT, "PARLEY_STREAM_PORT"),
        "mail-in": (config.MAIL_IN_HOST, config.MAIL_IN_PORT, "PARLEY_MAIL_IN_PORT"),
    }


def ensure_served_ports_free(config: Config, names: list[str]) -> None:
    """PortTaken for the first of the processes `names` whose port is in use."""
    ports = served_ports(config)
    for name in names:
        if name in ports:
            ensure_free(*ports[name])


def ephemeral_floor() -> int:
    """The lowest port the kernel gives outgoing connections' local ends."""
    try:
        return int(_EPHEMERAL.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def free_port() -> int:
    """A loopback port nothing listens on, for a server the tests or the benchmarks start.

    Chosen below the ephemeral range: a port the kernel hands out (a bind to port 0) is also
    where it puts the local end of outgoing connections, so between this choice and the
    server's bind a client connection to Redis could take it (seen: a stream process refused
    to start on a port a moment ago free)."""
    low = ephemeral_floor()
    floor = min(10000, low // 2)
    for _ in range(200):
        port = random.randrange(floor, low)
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free loopback port between {floor} and {low}")
