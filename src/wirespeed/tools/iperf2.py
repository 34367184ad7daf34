"""iperf2: argv for server and client, and parsers of what they print.

Runs use the enhanced human output (`-e`, with interval reports `-i`): it is the only
iperf2 format that gives TCP retransmits, says which end sent each report (`Write/Err`
against `Reads=Dist` columns) and prints the tool's warnings (window adjusted, missing
UDP ack) next to the numbers. CSV (-y C) has neither and rounds intervals to 0.1 s; it
is parsed for saved outputs. Both ends are captured and merged (merge.py): the UDP
receiver's counters come from whichever end received.

iperf2 2.1.x flushes its output at every report, so the runner sees the server's final
report as soon as it is printed (2.1.8 has no --forceflush).
"""

from __future__ import annotations

import re

from wirespeed.model import Direction, Proto, Result, Side, TestSpec, WarningKind
from wirespeed.tools.iperf2_csv import CSV_LINE, parse_csv
from wirespeed.tools.iperf2_text import parse_text
from wirespeed.tools.iperf_flags import load_flags, seconds

__all__ = [
    "DEFAULT_PORT",
    "OUTPUT_FORMAT",
    "client_argv",
    "client_stuck_after_report",
    "parse",
    "parse_csv",
    "parse_text",
    "parse_version",
    "server_argv",
    "server_listens_on",
    "server_report_complete",
]

DEFAULT_PORT = 5001
OUTPUT_FORMAT = "text"
PROGRAM = "iperf"

_DIRECTION_FLAGS = {
    Direction.UP: [],
    Direction.DOWN: ["-R"],  # 2.1.x; the server sends on the client's connection
    Direction.DUAL: ["-d"],  # the server opens a second connection back to the client
    Direction.BIDIR: ["--full-duplex"],  # both ways on the client's connection
}
_VERSION = re.compile(r"iperf version (\d+\.\d+(?:\.\d+)?(?:[-.]?\w+)?)")


def _common_argv(spec: TestSpec) -> list[str]:
    # -f b: bytes and bit/s in full. The default adaptive units round to 3 significant
    # digits ("941 Mbits/sec", "1.10 GBytes"): too coarse to compare with a ceiling.
    argv = ["-e", "-i", seconds(spec.interval), "-f", "b"]
    if spec.protocol is Proto.UDP:
        argv.append("-u")
    if spec.window is not None:
        argv += ["-w", str(spec.window)]  # plain bytes: `-w 64K` is binary, avoid suffixes
    return argv


def server_argv(spec: TestSpec, port: int) -> list[str]:
    argv = [PROGRAM, "-s", "-p", str(port), *_common_argv(spec)]
    if spec.protocol is Proto.UDP and spec.length is not None:
        argv += ["-l", str(spec.length)]  # the server reads with -l: larger datagrams cut
    return argv


def server_listens_on(spec: TestSpec) -> Proto:
    """The socket that shows the server is ready: `iperf -s -u` binds a UDP port and
    has no TCP one; `iperf -s` listens on TCP."""
    return spec.protocol


def client_argv(spec: TestSpec, target: str, port: int) -> list[str]:
    argv = [PROGRAM, "-c", target, "-p", str(port), *_common_argv(spec)]
    argv += ["-t", seconds(spec.duration)]
    if ":" in target:
        argv.append("-V")  # iperf2 needs it to connect to an IPv6 address
    argv += load_flags(spec)
    argv += _DIRECTION_FLAGS[spec.direction]
    if spec.congestion is not None and spec.protocol is Proto.TCP:
        argv += ["-Z", spec.congestion]
    return argv


def is_csv(text: str) -> bool:
    return any(CSV_LINE.match(line.strip()) for line in text.splitlines())


def parse(text: str, side: Side) -> Result:
    """Whichever of iperf2's text or CSV output `text` is."""
    return parse_csv(text, side) if is_csv(text) else parse_text(text, side)


# iperf 2.1.8's client of a UDP --full-duplex test whose receiving side waited in vain
# for the server's end datagram (lost, as at saturation any datagram may be) prints its
# final reports, then this, and never exits.
BARRIER_TIMEOUT = "Barrier timeout per full duplex traffic"


def server_report_complete(text: str, spec: TestSpec) -> bool:
    """True once the server has printed the final report of every stream of the test.

    The iperf2 server never exits by itself; the runner stops it once this holds (or on
    its own timeout, e.g. when the client never connected)."""
    return _report_complete(text, spec, Side.SERVER)


def client_stuck_after_report(text: str, spec: TestSpec) -> bool:
    """True when the client printed the final report of every flow and then hung after a
    full-duplex barrier timeout: the runner stops it and keeps what it printed."""
    return BARRIER_TIMEOUT in text and _report_complete(text, spec, Side.CLIENT)


def _report_complete(text: str, spec: TestSpec, side: Side) -> bool:
    result = parse(text, side)
    if any(w.kind is WarningKind.TRUNCATED for w in result.warnings):
        return False
    for flow in spec.flows:
        direction = result.direction(flow)
        if direction is None:
            return False
        # With -i the first interval also starts at 0 and may pass for the final report
        # until the next one arrives: a final report covers (almost) the whole test.
        least = spec.duration - spec.interval / 2
        finished = [
            s
            for s in direction.streams
            if (m := s.received or s.sent) is not None and m.seconds >= least
        ]
        if len(finished) < spec.parallel:
            return False
    return True


def parse_version(text: str) -> str | None:
    """'iperf version 2.1.8 (12 August 2022) pthreads' -> '2.1.8' (iperf2 -v: stderr)."""
    match = _VERSION.search(text)
    return match[1] if match else None
