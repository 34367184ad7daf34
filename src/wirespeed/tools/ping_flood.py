"""A ping flood: ICMP echo requests sent as fast as the path answers them (`ping -f`).

`ping -f -q -w SECONDS -s SIZE TARGET` (iputils) sends the next echo request as soon as
the last one's reply is back, or 10 ms after it when none comes, until the deadline,
then prints its summary:

    174192 packets transmitted, 174192 received, 0% packet loss, time 998ms
    rtt min/avg/max/mdev = 0.000/0.001/16.205/0.040 ms, pipe 2, ipg/ewma 0.005/0.001 ms

One request is in flight at a time, so the flood's rate is the path's packet round trip:
where a link's rate is what holds it back, a request waits for the link to carry the
one before it, and the flood runs at the link's frame rate (1,400 bytes of data across
10 Mbit/s: 853 a second, tests/fixtures/ping_flood/pf-1400-10mbit.txt). At the deadline
iputils waits for nothing more and counts the request still in flight as lost: its
answer is unknown, not lost, so the loss leaves it out (as tools/ping.py leaves out the
tail).

Flooding needs root on the client (iputils refuses others an interval under 2 ms), and
busybox's ping (OpenWrt's) has no flood mode: both are said as the trial's failure,
quoting ping.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field

from wirespeed.model import Better, Measurement

PROGRAM = "ping"
# ICMP has no port: nothing listens at the far end, whose kernel answers (no server).
DEFAULT_PORT = 0
# Beyond the flood's deadline, how long ping may take to resolve, start and print.
CLIENT_MARGIN = 10.0
# Below 16 bytes of payload the request has no room for its timestamp: no round trip.
MIN_SIZE = 16
MAX_SIZE = 65_507  # an IPv4 packet's largest payload, less the ICMP header
IP_AND_ICMP_HEADERS = 28  # IPv4's 20 and the echo request's 8, before its data

RTT = "flood rtt"
LOSS = "flood loss"
RATE = "flood rate"
STATISTICS = ("min", "mean", "max", "mdev")


class Options(BaseModel):
    """The plan's `options:` of a ping flood."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    duration: int = Field(5, ge=1, le=3600, description="seconds of flooding")
    size: int = Field(56, ge=MIN_SIZE, le=MAX_SIZE, description="bytes of each request's data")


def server_argv(options: Mapping[str, object], port: int) -> list[str] | None:
    return None  # the far end's kernel answers each echo request


def client_argv(options: Mapping[str, object], target: str, port: int) -> list[str]:
    settings = Options.model_validate(options)
    return [PROGRAM, "-f", "-q", "-w", str(settings.duration), "-s", str(settings.size), target]


def client_timeout(options: Mapping[str, object]) -> float:
    return Options.model_validate(options).duration + CLIENT_MARGIN


_SENT = re.compile(
    r"^(?P<sent>\d+) packets transmitted, (?P<received>\d+) received"
    r"(?:, \+\d+ errors)?(?:, \+\d+ duplicates)?, [\d.]+% packet loss, "
    r"time (?P<ms>\d+)ms$",
    re.MULTILINE,
)
_RTT = re.compile(
    r"^rtt min/avg/max/mdev = (?P<min>[\d.]+)/(?P<mean>[\d.]+)/(?P<max>[\d.]+)/"
    r"(?P<mdev>[\d.]+) ms",
    re.MULTILINE,
)
_NOT_ROOT = "cannot flood"
_NO_FLOOD = "invalid option -- 'f'"


def parse(text: str) -> tuple[Measurement, ...]:
    """The flood's round trips, loss and rate from ping's summary; ValueError saying why,
    quoting ping, when it holds no round trip."""
    sent = _SENT.search(text)
    if sent is None:
        raise ValueError(_why_none(text))
    if int(sent["received"]) == 0:
        raise ValueError(
            f"none of the {sent['sent']} echo requests was answered: the path drops ICMP, "
            "or is down"
        )
    rtt = _RTT.search(text)
    if rtt is None:
        raise ValueError("ping printed no round-trip times")
    seconds = int(sent["ms"]) / 1000
    asked, answered = int(sent["sent"]), int(sent["received"])
    if answered < asked:
        asked -= 1  # the request in flight at the deadline: unknown, not lost
    figures = [
        Measurement(RTT, "ms", Better.LOWER, float(rtt[stat]), (("stat", stat),))
        for stat in STATISTICS
    ]
    figures.append(Measurement(LOSS, "%", Better.LOWER, 100 * (asked - answered) / asked))
    # ping's clock is whole milliseconds: a flood shorter than 0.1 s gives no rate worth
    # the name (the plan's shortest is 1 s).
    if seconds >= 0.1:
        figures.append(Measurement(RATE, "pps", Better.HIGHER, answered / seconds))
    return tuple(figures)


def _why_none(text: str) -> str:
    said = [line.strip() for line in text.splitlines() if line.strip()]
    if any(_NOT_ROOT in line for line in said):
        quoted = next(line for line in said if _NOT_ROOT in line)
        return f"{quoted}: a ping flood needs root on the client"
    if any(_NO_FLOOD in line for line in said):
        return (
            "this ping has no flood mode (busybox's has none): install iputils-ping on the client"
        )
    return f"ping printed no summary: {said[-1]}" if said else "ping printed nothing"
