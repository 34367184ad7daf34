"""iperf2 as a packet generator: UDP at a packet rate (`-b Npps`), datagrams of an exact
size (`-l`), for the forwarding-rate search. Argv builders and pure parsers.

    receiver: iperf -s -u -e -p PORT -l BUFFER
    sender:   iperf -c TARGET -u -e -p PORT -l PAYLOAD -b 15000pps -t SECONDS

What is counted (iperf 2.1.8, checked against its output in tests/fixtures/iperf2-pps):
the sender's summary line gives its writes (`Write/Err`: data datagrams sent). It then
sends a final datagram (and repeats it until acknowledged, `Sent N datagrams` counting
those too). The receiver numbers datagrams: its report's Total is the final datagram's
sequence number, writes + 1, and Lost the gaps before it, so data datagrams received =
writes - Lost. No report at all (the receiver saw no datagram, the sender got no ack:
"did not receive ack of last datagram") means nothing arrived.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PROGRAM = "iperf"
RECEIVER_BUFFER = 1470  # iperf2's default read size; a larger datagram needs a larger -l

# "[  1] 0.0000-2.0001 sec   563 KBytes  2.30 Mbits/sec  32003/0    16001 pps"
_SENDER_SUMMARY = re.compile(
    r"^\[\s*\d+\]\s+(?P<start>[\d.]+)-(?P<end>[\d.]+)\s+sec\s+.*?\s(?P<writes>\d+)/(?P<errors>\d+)"
    r"\s+\d+\s+pps\s*$"
)
# "... 0.002 ms 1856/32004 (5.8%) 0.010/0.004/... ms 15073 pps ..."
_REPORT = re.compile(
    r"^\[\s*\d+\]\s+(?P<start>[\d.]+)-(?P<end>[\d.]+)\s+sec\s+.*?ms\s+"
    r"(?P<lost>-?\d+)/(?P<total>\d+)\s+\("
)
_SERVER_REPORT = re.compile(r"^\[\s*\d+\]\s+Server Report:")
_CONNECTED = re.compile(r"^\[\s*\d+\]\s+local\s+\S+\s+port\s+\d+\s+connected with")
_NO_ACK = "did not receive ack of last datagram"
_ERROR_WORDS = re.compile(r"failed|error|unable|refused|unreachable|invalid", re.IGNORECASE)


@dataclass(frozen=True)
class SenderReport:
    writes: int  # data datagrams the generator sent
    seconds: float  # how long it sent them
    # The receiver's counts as relayed back to the sender (its "Server Report"); None
    # when the acknowledgement never came.
    relayed: ReceiverReport | None


@dataclass(frozen=True)
class ReceiverReport:
    lost: int  # gaps in the sequence numbers up to the final datagram
    total: int  # the final datagram's sequence number: data datagrams + 1


def receiver_argv(port: int, payload: int) -> list[str]:
    return [PROGRAM, "-s", "-u", "-e", "-p", str(port), "-l", str(max(payload, RECEIVER_BUFFER))]


# iperf2 keeps -t in hundredths of a second, cut down from the double it reads:
# `-t 0.736806` sends for 0.73 s, and `-t 0.29` (28.999... hundredths) for 0.28 s.
TIMER_STEPS_PER_SECOND = 100


def seconds_text(seconds: float) -> str:
    return f"{seconds:g}"


def sending_seconds(seconds: float) -> float:
    """How long iperf2 sends when asked for `seconds` (as seconds_text writes them), as
    it reads its -t: the text as a double, times 100, truncated."""
    steps = int(float(seconds_text(seconds)) * TIMER_STEPS_PER_SECOND)
    return max(steps, 1) / TIMER_STEPS_PER_SECOND


def sender_argv(target: str, port: int, payload: int, pps: int, seconds: float) -> list[str]:
    argv = [PROGRAM, "-c", target, "-u", "-e", "-p", str(port), "-l", str(payload)]
    argv += ["-b", f"{pps}pps", "-t", seconds_text(seconds)]
    if ":" in target:
        argv.append("-V")
    return argv


def _report(line: str) -> ReceiverReport | None:
    found = _REPORT.match(line.strip())
    if found is None:
        return None
    return ReceiverReport(lost=max(0, int(found["lost"])), total=int(found["total"]))


def parse_sender(text: str) -> SenderReport:
    """The generator's own account; ValueError when it printed no summary."""
    writes: int | None = None
    seconds = 0.0
    relayed: ReceiverReport | None = None
    after_server_report = False
    for line in text.splitlines():
        stripped = line.strip()
        if _SERVER_REPORT.match(stripped):
            after_server_report = True
            continue
        if after_server_report:
            report = _report(stripped)
            if report is not None:
                relayed = report
                after_server_report = False
            continue
        found = _SENDER_SUMMARY.match(stripped)
        if found is not None:
            writes = int(found["writes"])
            seconds = float(found["end"]) - float(found["start"])
    if writes is None:
        said = [line.strip() for line in text.splitlines() if line.strip()]
        errors = [line for line in said if _ERROR_WORDS.search(line)]
        raise ValueError((errors or said or ["iperf printed nothing"])[0])
    return SenderReport(writes=writes, seconds=seconds, relayed=relayed)


def parse_receiver(text: str) -> ReceiverReport | None:
    """The receiver's final report; None when no datagram reached it."""
    report: ReceiverReport | None = None
    for line in text.splitlines():
        found = _report(line)
        if found is not None:
            report = found
    return report


def receiver_connected(text: str) -> bool:
    """Whether any datagram reached the receiver (iperf2 prints "connected with" then)."""
    return any(_CONNECTED.match(line.strip()) for line in text.splitlines())


def no_ack(text: str) -> bool:
    return _NO_ACK in text


def received(sender: SenderReport, receiver: ReceiverReport | None) -> int:
    """Data datagrams that reached the receiver: writes - lost, by the receiver's report
    (its own, else the one relayed to the sender); 0 when there is none."""
    report = receiver or sender.relayed
    if report is None:
        return 0
    return max(0, sender.writes - report.lost)
