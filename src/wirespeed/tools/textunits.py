"""The units iperf prints, converted to bytes and bit/s.

Both iperfs print transfers with binary prefixes ("13.2 GBytes" = 13.2 x 2^30 bytes) and
rates with SI prefixes ("941 Mbits/sec" = 941 x 10^6 bit/s). A rate printed in bytes
(iperf2 `-f M`: "MBytes/sec") is binary too.
"""

from __future__ import annotations

_BINARY = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
_SI = {"": 1, "K": 10**3, "M": 10**6, "G": 10**9, "T": 10**12}


def to_bytes(number: str, unit: str) -> int:
    """'13.2', 'GBytes' -> 14173392076. The tools round to 3 significant digits."""
    if not unit.endswith("Bytes"):
        raise ValueError(f"not a transfer unit: {unit!r}")
    return round(float(number) * _BINARY[unit.removesuffix("Bytes").upper()])


def to_bits_per_second(number: str, unit: str) -> float:
    """'941', 'Mbits/sec' -> 941e6; 'MBytes/sec' counts 2^20 bytes of 8 bits."""
    if unit.endswith("bits/sec"):
        return float(number) * _SI[unit.removesuffix("bits/sec").upper()]
    if unit.endswith("Bytes/sec"):
        return float(number) * 8 * _BINARY[unit.removesuffix("Bytes/sec").upper()]
    raise ValueError(f"not a rate unit: {unit!r}")
