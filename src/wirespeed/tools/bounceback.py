"""iperf2's bounceback test: round trips of small TCP messages between client and server.

`iperf -c HOST --bounceback` (iperf 2.1 and later) writes a message of `-l` bytes, the
server writes it straight back (TCP_QUICKACK, Nagle off), and the client times each
exchange: bursts of 10 every second for `-t` seconds. Its summary line gives the
count and the mean, min, max and standard deviation of the round trips in ms:

    [  1] 0.0000-2.0135 sec  3.91 KBytes  15.9 Kbits/sec    20=0.042/0.016/0.325/0.075 ms ...

The round trip of a message includes its serialization both ways: on a slow link a
big message shows the link's rate, a small one the path's own latency. The server is
the plain iperf2 server (`iperf -s`), which answers a bounceback client by itself.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field

from wirespeed.model import Better, Measurement

DEFAULT_PORT = 5001
# Beyond the test's duration, how long the client may take to connect, finish and print.
CLIENT_MARGIN = 15.0
# Below 64 bytes iperf 2.1.8's client fails to read the echo, or hangs ignoring SIGTERM.
MIN_SIZE = 64
MAX_SIZE = 1 << 20  # a message larger than this measures a transfer, not a round trip

NAME = "bounceback rtt"
STATISTICS = ("mean", "min", "max")


class Options(BaseModel):
    """The plan's `options:` of a bounceback test."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    duration: int = Field(5, ge=1, le=3600, description="seconds of bursts")
    size: int = Field(100, ge=MIN_SIZE, le=MAX_SIZE, description="bytes of each message")


def server_argv(options: Mapping[str, object], port: int) -> list[str]:
    return ["iperf", "-s", "-p", str(port)]


def client_argv(options: Mapping[str, object], target: str, port: int) -> list[str]:
    settings = Options.model_validate(options)
    return [
        "iperf",
        "-c",
        target,
        "-p",
        str(port),
        "--bounceback",
        "-t",
        str(settings.duration),
        "-l",
        str(settings.size),
    ]


def client_timeout(options: Mapping[str, object]) -> float:
    return Options.model_validate(options).duration + CLIENT_MARGIN


# "20=0.042/0.016/0.325/0.075 ms": count=mean/min/max/stdev of the round trips.
_ROUND_TRIPS = re.compile(
    r"\s(?P<count>\d+)=(?P<mean>[\d.]+)/(?P<min>[\d.]+)/(?P<max>[\d.]+)/(?P<stdev>[\d.]+) ms\b"
)
_ERROR = re.compile(r"^(tcp \S+ failed: .*|.*error.*)$", re.IGNORECASE | re.MULTILINE)


def parse(text: str) -> tuple[Measurement, ...]:
    """The round trips of the run's summary line (its last; interval lines come first).
    ValueError, quoting iperf's own error where it printed one (else its last line), when
    there is none."""
    found = list(_ROUND_TRIPS.finditer(text))
    if not found or int(found[-1]["count"]) == 0:
        error = _ERROR.search(text)
        last = [line.strip() for line in text.splitlines() if line.strip()][-1:]
        said = f": {error.group(0).strip()}" if error else "".join(f": {line}" for line in last)
        raise ValueError(f"iperf reported no bounceback round trip{said}")
    summary = found[-1]
    return tuple(
        Measurement(NAME, "ms", Better.LOWER, float(summary[statistic]), (("stat", statistic),))
        for statistic in STATISTICS
    )
