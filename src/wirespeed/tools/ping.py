"""ping: ICMP echo round trips, where irtt is missing (iputils' ping, busybox's ping).

`ping -n -i 0.01 -w SECONDS TARGET`: both read -i as (fractional) seconds and -w as the
deadline of the whole run; root may ask for 10 ms (iputils refuses less than 200 ms to
other users). iputils sends about 60 a second at -i 0.01 here, busybox 100: the count
of probes is what it is, the percentiles do not depend on it.

Loss: at the deadline the probes still in flight (four, in a 40 ms queue at 10 ms
apart) count as lost in ping's own summary. The parser counts only the sequence
numbers up to the last answer: a gap is a probe lost, the tail is unknown, not lost.
"""

from __future__ import annotations

import math
import re

from wirespeed.tools.probing import ProbeSeries

__all__ = ["INTERVAL", "PROGRAM", "argv", "parse"]

PROGRAM = "ping"
INTERVAL = 0.010
# iputils: "64 bytes from 198.19.1.2: icmp_seq=1 ttl=63 time=0.138 ms"
# busybox: "64 bytes from 198.19.1.2: seq=0 ttl=63 time=0.107 ms"
_REPLY = re.compile(
    r"\bbytes from .*?\b(?P<kind>icmp_seq|seq)=(?P<seq>\d+)\b.*?\btime[=<](?P<ms>[\d.]+) ms"
)


def argv(target: str, duration: float, *, interval: float = INTERVAL) -> list[str]:
    # -w takes whole seconds in busybox: rounded down, so the probes end within the
    # duration (under load: before the load does), at least one second.
    return [PROGRAM, "-n", "-i", f"{interval:g}", "-w", str(max(1, math.floor(duration))), target]


def parse(text: str) -> ProbeSeries:
    """ping's output -> ProbeSeries; ValueError when no probe was answered."""
    seen: dict[int, float] = {}
    first = 1
    for line in text.splitlines():
        match = _REPLY.search(line)
        if match is None or "DUP!" in line:
            continue
        first = 0 if match["kind"] == "seq" else 1  # busybox counts from 0, iputils 1
        seen.setdefault(int(match["seq"]), float(match["ms"]))
    if not seen:
        said = [line.strip() for line in text.strip().splitlines() if line.strip()]
        raise ValueError(said[-1] if said else "ping printed nothing")
    # iputils' icmp_seq wraps at 65535: ten minutes at 100 a second, beyond any phase.
    sent = max(seen) - first + 1
    order = sorted(seen)
    return ProbeSeries(
        tool=PROGRAM,
        sent=sent,
        rtt_ms=tuple(seen[s] for s in order),
        seq=tuple(s - first for s in order),
    )
