"""RRUL (realtime response under load, flent's test): TCP streams both ways at once
through the path, and latency probes beside them. The traffic is iperf3's: two client
processes, one sending `parallel` streams up, one receiving as many down (-R), each to
its own one-shot server on its own port.

Two processes rather than one `--bidir`: iperf3 before 3.16 runs every stream of a
process on one thread, so a device's one core would carry both directions' eight
streams; two processes spread them over two. Each process measures one direction alone,
so its numbers are iperf3's own (its JSON, tools/iperf3_json.py), and `combine` puts the
up process's up flow and the down process's down flow into one result.

The probes are the trial's `probes:` (run/probes.py): irtt, ping where irtt is missing.
"""

from __future__ import annotations

import dataclasses

from wirespeed.model import Direction, Flow, Proto, Result, TestSpec, Tool
from wirespeed.tools import iperf3
from wirespeed.tools.assemble import dedupe_warnings

__all__ = ["DEFAULT_PORT", "FLOWS", "client_argv", "combine", "one_way", "ports", "server_argv"]

DEFAULT_PORT = iperf3.DEFAULT_PORT
# The load's two processes: each direction by its own client, to its own server.
FLOWS = (Flow.UP, Flow.DOWN)
DEFAULT_STREAMS = 4  # flent's RRUL: four TCP flows each way


def ports(first: int) -> dict[Flow, int]:
    """The two servers' ports: up on the first, down on the next."""
    return {flow: first + index for index, flow in enumerate(FLOWS)}


def one_way(spec: TestSpec, flow: Flow) -> TestSpec:
    direction = Direction.UP if flow is Flow.UP else Direction.DOWN
    return dataclasses.replace(spec, protocol=Proto.TCP, direction=direction, probes=None)


def server_argv(spec: TestSpec, flow: Flow, port: int) -> list[str]:
    return iperf3.server_argv(one_way(spec, flow), port)


def client_argv(spec: TestSpec, flow: Flow, target: str, port: int) -> list[str]:
    """iperf3 -c TARGET -P N for the up flow, with -R for the down flow."""
    return iperf3.client_argv(one_way(spec, flow), target, port)


def combine(by_flow: dict[Flow, Result]) -> Result:
    """One RRUL result from each process's own (iperf3's client and server merged): the
    up process's up direction and the down process's down direction. A process that
    measured the other direction too (it cannot, but a parser might say so) is not
    counted twice."""
    directions = []
    for flow in FLOWS:
        result = by_flow.get(flow)
        direction = result.direction(flow) if result is not None else None
        if direction is not None:
            directions.append(direction)
    results = [by_flow[flow] for flow in FLOWS if flow in by_flow]
    return Result(
        tool=Tool.RRUL,
        protocol=Proto.TCP,
        directions=tuple(directions),
        warnings=dedupe_warnings(w for r in results for w in r.warnings),
        tool_version=next((r.tool_version for r in results if r.tool_version), None),
    )
