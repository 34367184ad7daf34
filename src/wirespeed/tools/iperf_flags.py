"""What iperf2 and iperf3 spell alike: a time in seconds, and the client's load flags."""

from __future__ import annotations

from wirespeed.model import TestSpec

__all__ = ["load_flags", "seconds"]


def seconds(value: float) -> str:
    return f"{value:g}"


def load_flags(spec: TestSpec) -> list[str]:
    """-b, -l and -P as the spec sets them: the rate in plain bit/s (iperf2 reads
    `-b 1000M` as 1000 x 2^20: LIMITS.md, unit traps), the buffer or datagram length in
    bytes, the number of streams."""
    flags: list[str] = []
    if spec.rate is not None:
        flags += ["-b", str(spec.rate)]
    if spec.length is not None:
        flags += ["-l", str(spec.length)]
    if spec.parallel > 1:
        flags += ["-P", str(spec.parallel)]
    return flags
