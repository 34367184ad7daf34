"""Which tool, format and end produced a saved output, and its Result."""

from __future__ import annotations

import re

from wirespeed.errors import UsageError
from wirespeed.model import Result, Side, Tool
from wirespeed.tools import iperf2, iperf3
from wirespeed.tools.iperf2_csv import CSV_LINE
from wirespeed.tools.iperf2_serverlog import split_tests
from wirespeed.tools.iperf3_json import load_json

_IPERF2_CLIENT = re.compile(r"^Client connecting to \S+, (?:TCP|UDP) port \d+", re.MULTILINE)
_IPERF2_SERVER = re.compile(r"^Server listening on (?:TCP|UDP) port \d+", re.MULTILINE)
_IPERF2_CONNECTED = re.compile(r"^\[\s*\*?\d+\] local \S+ port (\d+) connected with", re.MULTILINE)
_IPERF2_LISTEN_PORT = re.compile(r"^Server listening on (?:TCP|UDP) port (\d+)", re.MULTILINE)
_IPERF2_REPORT = re.compile(r"^\[\s*\*?\d+\]\s+\d+\.\d+\s*-\s*\d+\.\d+ sec", re.MULTILINE)
_IPERF3_CLIENT = re.compile(r"^(?:Connecting to host |iperf3: error)", re.MULTILINE)
_IPERF3_SERVER = re.compile(r"^(?:Server listening on \d+|Accepted connection from)", re.MULTILINE)


def detect(text: str) -> tuple[Tool, str, Side]:
    """(tool, "text" | "csv" | "json", side) of a saved iperf output.

    iperf2 CSV does not say which end printed it: it is taken for the client's."""
    if any(line.startswith("{") for line in text.splitlines()):
        data = load_json(text)
        if data is not None and ("start" in data or "error" in data):
            start = data.get("start", {})
            server = "accepted_connection" in start and "connecting_to" not in start
            return Tool.IPERF3, "json", Side.SERVER if server else Side.CLIENT
    if any(CSV_LINE.match(line.strip()) for line in text.splitlines()):
        return Tool.IPERF2, "csv", Side.CLIENT
    if _IPERF3_SERVER.search(text):
        return Tool.IPERF3, "text", Side.SERVER
    if _IPERF3_CLIENT.search(text):
        return Tool.IPERF3, "text", Side.CLIENT
    if _IPERF2_CLIENT.search(text) or _IPERF2_SERVER.search(text) or _IPERF2_REPORT.search(text):
        return Tool.IPERF2, "text", _iperf2_side(text)
    first = next((line for line in text.splitlines() if line.strip()), "")
    raise UsageError(
        f"not iperf output (starts with {first[:60]!r})",
        hint="give the saved output of iperf (2.0/2.1, text or -y C) or iperf3 (text or -J)",
    )


def _iperf2_side(text: str) -> Side:
    """A client prints "Client connecting to" before its first connection, or (with -d,
    whose own listener's banner comes first) its first connection is one it opened: a
    server accepts a connection before it opens any (-d)."""
    client = _IPERF2_CLIENT.search(text)
    connected = _IPERF2_CONNECTED.search(text)
    if connected is None:
        return Side.SERVER if _IPERF2_SERVER.search(text) and not client else Side.CLIENT
    if client and client.start() < connected.start():
        return Side.CLIENT
    listening = {int(m[1]) for m in _IPERF2_LISTEN_PORT.finditer(text)}
    return Side.SERVER if int(connected[1]) in listening else Side.CLIENT


def parse_any(text: str) -> Result:
    tool, output_format, side = detect(text)
    if tool is Tool.IPERF3:
        return (
            iperf3.parse_json(text, side)
            if output_format == "json"
            else iperf3.parse_text(text, side)
        )
    return iperf2.parse_csv(text, side) if output_format == "csv" else iperf2.parse_text(text, side)


def parse_all(text: str) -> list[tuple[str, Result]]:
    """Every test in a saved output, each with its part of the text: an iperf2 server's
    text log may hold several tests, one after another."""
    tool, output_format, side = detect(text)
    if tool is Tool.IPERF2 and output_format == "text" and side is Side.SERVER:
        return [(part, iperf2.parse_text(part, side)) for part in split_tests(text)]
    return [(text, parse_any(text))]
