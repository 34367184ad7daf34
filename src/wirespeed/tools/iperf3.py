"""iperf3: argv for server and client, and parsers of what they print.

Runs use JSON (-J): exact byte counts, both ends' numbers on the client, and the
"error" key, which is the only sign of failure since iperf3 3.12 with -J exits 0 on
errors (LIMITS.md). The server is one-shot (-1): it exits after its test, so its
report is complete when its JSON object is.
"""

from __future__ import annotations

import math
import re

from wirespeed.model import Direction, Proto, Result, Side, TestSpec
from wirespeed.tools.iperf3_json import load_json, parse_json
from wirespeed.tools.iperf3_text import parse_text
from wirespeed.tools.iperf_flags import load_flags, seconds

__all__ = [
    "DEFAULT_PORT",
    "OUTPUT_FORMAT",
    "client_argv",
    "client_stuck_after_report",
    "parse",
    "parse_json",
    "parse_text",
    "parse_version",
    "server_argv",
    "server_listens_on",
    "server_report_complete",
]

DEFAULT_PORT = 5201
# iperf3 gives up on a connection attempt after this many milliseconds instead of the
# kernel's two minutes of SYN retries: an unreachable server fails the trial quickly.
CONNECT_TIMEOUT_MS = 5000
OUTPUT_FORMAT = "json"
PROGRAM = "iperf3"

_VERSION = re.compile(r"iperf (\d+\.\d+(?:\.\d+)?\+?)")


def server_argv(spec: TestSpec, port: int) -> list[str]:
    # -i on the server too: its interval series is the receiver's view of an up test.
    return [PROGRAM, "-s", "-1", "-J", "-p", str(port), "-i", seconds(spec.interval)]


def server_listens_on(spec: TestSpec) -> Proto:
    """The socket that shows the server is ready: its TCP control port, whatever the
    test's protocol (a UDP test's socket is opened only once a client asks for one)."""
    del spec
    return Proto.TCP


def client_argv(spec: TestSpec, target: str, port: int) -> list[str]:
    if spec.direction is Direction.DUAL:
        raise ValueError("iperf3 has no dual mode (-d); use direction bidir (--bidir)")
    argv = [PROGRAM, "-c", target, "-p", str(port), "-J"]
    argv += ["--connect-timeout", str(CONNECT_TIMEOUT_MS)]
    # iperf3 reads -t as a whole number: "-t 0.5" is 0, which means "run forever".
    argv += ["-t", str(max(1, math.ceil(spec.duration))), "-i", seconds(spec.interval)]
    if spec.protocol is Proto.UDP:
        argv.append("-u")
    argv += load_flags(spec)
    if spec.window is not None:
        argv += ["-w", str(spec.window)]
    if spec.direction is Direction.DOWN:
        argv.append("-R")
    elif spec.direction is Direction.BIDIR:
        argv.append("--bidir")
    if spec.congestion is not None and spec.protocol is Proto.TCP:
        argv += ["-C", spec.congestion]  # iperf3 hands it to the server for -R too
    return argv


def parse(text: str, side: Side) -> Result:
    """Whichever of iperf3's JSON or text output `text` is."""
    return parse_json(text, side) if _looks_like_json(text) else parse_text(text, side)


def _looks_like_json(text: str) -> bool:
    return any(line.startswith("{") for line in text.splitlines())


def client_stuck_after_report(text: str, spec: TestSpec) -> bool:
    """iperf3 ends on its own once its report is out: never stuck after it."""
    del text, spec
    return False


def server_report_complete(text: str, spec: TestSpec) -> bool:
    """True once the server printed everything: its JSON object is complete (with -1 it
    then exits), or, in text mode, its final summary is out."""
    del spec  # the one-shot server knows its own test
    if _looks_like_json(text):
        return load_json(text) is not None
    return any(line.rstrip().endswith(("receiver", "sender")) for line in text.splitlines())


def parse_version(text: str) -> str | None:
    """'iperf 3.12 (cJSON 1.7.15)' -> '3.12'."""
    match = _VERSION.search(text)
    return match[1] if match else None
