"""The domain's first words: what is measured (a Measurement, which way it improves) and
the closed sets a test and a path are described in (protocol, direction, flow, side,
probes, topology, role). model.py builds on them and gives them with its own.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class ModelError(ValueError):
    """A value that cannot describe anything real (negative duration, zero streams...)."""


class Better(enum.StrEnum):
    """Which way a measurement improves: goodput and MIPS up, loss and latency down."""

    HIGHER = "higher"
    LOWER = "lower"


@dataclass(frozen=True)
class Measurement:
    """One measured quantity of a trial: the common currency of statistics, compare and
    every export. A tool's richer detail (iperf's streams and intervals) is kept beside.

    `name` says what was measured ("AES-128-CBC", "compress", "goodput"), `labels` the
    conditions that tell two of a trial apart (block size, EVP, threads, flow), as text
    meant for reading; name and labels together are the measurement's identity across
    repetitions, runs and devices."""

    name: str
    unit: str  # "B/s", "bit/s", "MIPS", "%", "ms", "index", "count"
    better: Better
    value: float
    labels: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        require(bool(self.name), "a measurement needs a name")
        require(self.value == self.value, f"{self.name}: value is not a number")

    @property
    def key(self) -> tuple[str, tuple[tuple[str, str], ...]]:
        return (self.name, self.labels)

    @property
    def item(self) -> str:
        """How a report names it: "AES-128-CBC 1 KB, EVP"."""
        if not self.labels:
            return self.name
        return f"{self.name} " + ", ".join(value for _, value in self.labels)


class Proto(enum.StrEnum):
    TCP = "tcp"
    UDP = "udp"


class Direction(enum.StrEnum):
    """Which way traffic goes in one test, from the client's point of view."""

    UP = "up"  # client sends, server receives: iperf's default
    DOWN = "down"  # server sends, client receives: -R
    # Both ways at once, the reverse flow on a new connection that the server opens back
    # to the client (iperf2 -d). Fails through NAT; iperf3 has no such mode.
    DUAL = "dual"
    # Both ways at once over the connection(s) the client opened
    # (iperf2 --full-duplex, iperf3 --bidir). Works through NAT.
    BIDIR = "bidir"


class Flow(enum.StrEnum):
    """The direction of one measured flow: up is client to server."""

    UP = "up"
    DOWN = "down"


class Side(enum.StrEnum):
    CLIENT = "client"
    SERVER = "server"
    DEVICE = "device"  # a benchmark's output, on the host it ran on
    PROBE = "probe"  # a latency prober's output (irtt, ping), idle and under load


class Probes(enum.StrEnum):
    """What measures latency beside a traffic test (run/probes.py)."""

    IRTT = "irtt"  # irtt where both ends have it, else ping (said in the run's output)
    PING = "ping"  # ICMP echo alone: round trips, no one-way delays


class Topology(enum.StrEnum):
    """What sits between client and server; see lab/ for how each is built."""

    ENDPOINT = "endpoint"  # the DUT itself runs the iperf server (the seeds' "WAN" test)
    BRIDGE = "bridge"  # the DUT bridges two ports (the seeds' "Br0" test)
    ROUTER = "router"  # two subnets, the DUT forwards
    NAT = "nat"  # as router, plus masquerade on the DUT's WAN port
    # No traffic: a benchmark (openssl speed, 7-zip) runs on the device itself.
    DEVICE = "device"


class Role(enum.StrEnum):
    CLIENT = "client"
    SERVER = "server"
    DUT = "dut"


def require(condition: bool, message: str) -> None:
    """ModelError with `message` unless `condition` holds: a value checked at the door."""
    if not condition:
        raise ModelError(message)
