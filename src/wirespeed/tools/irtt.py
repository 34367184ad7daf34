"""irtt: isochronous UDP round trips with one-way delays (Debian package `irtt`).

The server (`irtt server`) answers on a UDP port; the client sends a probe every
interval for a duration and prints, with `-o -`, one JSON document: per probe its
round trip and both one-way delays in nanoseconds, and whether it was lost and which
way (`lost`: "false", "true", "true_up", "true_down"). `-Q` keeps the per-probe text
off stdout, so the JSON is all there is. After the last probe the client waits
`--wait 3x1s` (three times the largest round trip, or 1 s without any answer) for late
answers: a probe still in a 40 ms queue is answered, not counted lost.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

from wirespeed.tools.probing import ProbeSeries

__all__ = [
    "DEFAULT_PORT",
    "INTERVAL",
    "PROGRAM",
    "client_argv",
    "parse",
    "server_address",
    "server_argv",
]

PROGRAM = "irtt"
DEFAULT_PORT = 2112  # irtt's own
INTERVAL = 0.010  # seconds between probes: 100 a second, as flent's RRUL measures
NANOSECONDS_PER_MS = 1e6


def server_argv(port: int = DEFAULT_PORT) -> list[str]:
    """Every address of the host, this port. The server keeps no state between tests."""
    return [PROGRAM, "server", "-b", f":{port}"]


def client_argv(
    target: str, duration: float, *, port: int = DEFAULT_PORT, interval: float = INTERVAL
) -> list[str]:
    return [
        PROGRAM, "client",
        "-i", f"{round(interval * 1000)}ms",
        "-d", f"{round(duration * 1000)}ms",
        "-Q", "-o", "-",
        "--wait=3x1s",
        server_address(target, port),
    ]  # fmt: skip


def server_address(target: str, port: int) -> str:
    """The server as irtt's client names it: host:port, an IPv6 address in brackets."""
    host = f"[{target}]" if ":" in target and not target.startswith("[") else target
    return f"{host}:{port}"


def parse(text: str) -> ProbeSeries:
    """The client's JSON output -> ProbeSeries; ValueError with irtt's own words when
    there is none (no server: "connection refused"; unreachable: "no reply from server")."""
    try:
        document = _loads(text)
    except json.JSONDecodeError:
        said = [line.strip() for line in text.strip().splitlines() if line.strip()]
        raise ValueError(said[-1] if said else "irtt printed nothing") from None
    if not isinstance(document, dict) or not isinstance(document.get("round_trips"), list):
        raise ValueError("irtt's output has no round_trips")
    rtts: list[float] = []
    ups: list[float] = []
    downs: list[float] = []
    places: list[int] = []
    lost_up = lost_down = 0
    for place, probe in enumerate(document["round_trips"]):
        lost = str(probe.get("lost", "false"))
        if lost == "true_up":
            lost_up += 1
        elif lost == "true_down":
            lost_down += 1
        if lost != "false":
            continue
        delay: dict[str, Any] = probe.get("delay") or {}
        rtts.append(delay["rtt"] / NANOSECONDS_PER_MS)
        places.append(place)
        if "send" in delay and "receive" in delay:
            ups.append(delay["send"] / NANOSECONDS_PER_MS)
            downs.append(delay["receive"] / NANOSECONDS_PER_MS)
    one_way = len(ups) == len(rtts)  # a server without timestamps gives none
    return ProbeSeries(
        tool=PROGRAM,
        sent=len(document["round_trips"]),
        rtt_ms=tuple(rtts),
        up_ms=tuple(ups) if one_way else (),
        down_ms=tuple(downs) if one_way else (),
        lost_up=lost_up,
        lost_down=lost_down,
        seq=tuple(places),
    )


def _loads(text: str) -> Any:
    """The JSON document: read by orjson (a third of json's time on irtt's outputs), and
    by json where orjson refuses what json reads (NaN, integers past 64 bits, lone
    surrogates): the same document either way, json's error where neither reads it."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)
