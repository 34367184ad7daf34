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
from collections.abc import Sequence

from wirespeed.model import (
    Better,
    Direction,
    DirectionResult,
    Flow,
    Measurement,
    Proto,
    Result,
    TestSpec,
    Tool,
    Transfer,
)
from wirespeed.tools import iperf3
from wirespeed.tools.assemble import dedupe_warnings, sum_optional

__all__ = [
    "DEFAULT_PORT",
    "FLOWS",
    "MAX_STAGES",
    "STEP_SECONDS",
    "client_argv",
    "combine",
    "combine_stages",
    "one_way",
    "ports",
    "responsiveness",
    "server_argv",
    "stable",
]

DEFAULT_PORT = iperf3.DEFAULT_PORT
# The load's two processes: each direction by its own client, to its own server.
FLOWS = (Flow.UP, Flow.DOWN)
DEFAULT_STREAMS = 4  # flent's RRUL: four TCP flows each way


# `until_stable` (RPM-like, after the IETF responsiveness draft's ramp, not its test):
# every STEP_SECONDS the goodput of the last step; stable when the mean of the last
# STABLE_STEPS steps is no more than STABLE_TOLERANCE above the mean of the STABLE_STEPS
# before (more streams would not move more: the link is full); until then another stage
# of `parallel` streams each way, at most MAX_STAGES in all.
STEP_SECONDS = 0.5
STABLE_STEPS = 2
STABLE_TOLERANCE = 0.05
MAX_STAGES = 4


def ports(first: int, stage: int = 0) -> dict[Flow, int]:
    """A stage's two servers' ports: up on the first, down on the next; each later
    stage of streams on the next two."""
    base = first + len(FLOWS) * stage
    return {flow: base + index for index, flow in enumerate(FLOWS)}


def stable(rates: Sequence[float]) -> bool:
    """Whether goodput per step (bit/s, oldest first) has stopped growing: the mean of
    the last STABLE_STEPS at most STABLE_TOLERANCE above the mean of the STABLE_STEPS
    before. A dip is stable too: cubic's sawtooth on a full link, not room for more."""
    if len(rates) < 2 * STABLE_STEPS:
        return False
    last = sum(rates[-STABLE_STEPS:]) / STABLE_STEPS
    before = sum(rates[-2 * STABLE_STEPS : -STABLE_STEPS]) / STABLE_STEPS
    return before > 0 and last <= (1 + STABLE_TOLERANCE) * before


def responsiveness(loaded_p50_ms: float) -> Measurement:
    """Round trips per minute under load: 60,000 / the loaded median round trip (ms).
    RPM-like: the responsiveness draft's unit, not its method (its probes are HTTP/2
    and TLS handshakes on the loaded connections and new ones; ours are irtt or ping)."""
    return Measurement(
        "responsiveness",
        "RPM",
        Better.HIGHER,
        60_000.0 / loaded_p50_ms,
        (("method", "RPM-like"),),
    )


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
    return _rrul_result(directions, [by_flow[flow] for flow in FLOWS if flow in by_flow])


def combine_stages(stages: Sequence[Result], offsets: Sequence[float] = ()) -> Result:
    """The RRUL results of several stages of streams (until_stable) as one: each way's
    streams together, their bytes over the time from the first stage's start to the
    last one's end (`offsets`: each stage's start, seconds after the first's). Later
    stages started later: their interval series do not line up with the first's, so a
    way of several stages has no sum series (its streams keep theirs)."""
    if len(stages) == 1:
        return stages[0]
    starts = list(offsets) + [0.0] * (len(stages) - len(offsets))
    directions = []
    for flow in FLOWS:
        parts = [(r.direction(flow), start) for r, start in zip(stages, starts, strict=True)]
        found = [(d, start) for d, start in parts if d is not None]
        if not found:
            continue
        directions.append(
            DirectionResult(
                flow=flow,
                sent=_spanning([(d.sent, start) for d, start in found]),
                received=_spanning([(d.received, start) for d, start in found]),
                retransmits=sum_optional(d.retransmits for d, _ in found),
                streams=tuple(s for d, _ in found for s in d.streams),
            )
        )
    return _rrul_result(directions, stages)


def _rrul_result(directions: Sequence[DirectionResult], parts: Sequence[Result]) -> Result:
    """One RRUL result of its ways, with the warnings and the tool version of the
    results it was made of."""
    return Result(
        tool=Tool.RRUL,
        protocol=Proto.TCP,
        directions=tuple(directions),
        warnings=dedupe_warnings(w for r in parts for w in r.warnings),
        tool_version=next((r.tool_version for r in parts if r.tool_version), None),
    )


def _spanning(parts: Sequence[tuple[Transfer | None, float]]) -> Transfer | None:
    """Stages' transfers as one: all their bytes over the first start to the last end."""
    known = [(t, start) for t, start in parts if t is not None]
    if not known:
        return None
    total = sum(t.bytes for t, _ in known)
    span = max(start + t.seconds for t, start in known)
    return Transfer(total, span, total * 8 / span if span > 0 else 0.0)
