"""Rates and sizes as people write them, and as wirespeed prints them.

Rates are SI (1M = 10^6 bit/s), as in iperf3 and on every datasheet. iperf2 reads
`-b 1000M` as 1000 x 2^20 bit/s (LIMITS.md, "unit traps"): wirespeed therefore always
hands iperf plain integers of bit/s, never suffixes.

Sizes (windows, lengths) are binary (64K = 65536 bytes), as both iperfs read `-w 64K`.
"""

from __future__ import annotations

import re

_RATE = re.compile(
    r"^\s*(?P<num>\d+(?:\.\d+)?)\s*(?P<prefix>[kKmMgGtT]?)(?:bit|bps|b/s|bit/s)?\s*$"
)
_SIZE = re.compile(r"^\s*(?P<num>\d+(?:\.\d+)?)\s*(?P<prefix>[kKmMgG]?)(?:i?B|i?b)?\s*$")
_DELAY = re.compile(r"^\s*(?P<num>\d+(?:\.\d+)?)\s*(?P<unit>us|ms|s)\s*$")
_DELAY_UNITS = {"us": 1e-6, "ms": 1e-3, "s": 1.0}
_SI = {"": 1, "k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}
_BINARY = {"": 1, "k": 2**10, "m": 2**20, "g": 2**30}


def parse_rate(text: str | int | float) -> int:
    """'1000M', '1G', '300mbit', '2.5gbit', 94100000 -> bit/s (SI)."""
    return _parse_count(
        text, _RATE, _SI, noun="rate", unit="bit/s", examples="1000M, 1G, 300mbit or 94100000"
    )


def parse_size(text: str | int | float) -> int:
    """'64K', '128KB', '1M', 1470 -> bytes (binary prefixes, as iperf's -w and -l)."""
    return _parse_count(
        text, _SIZE, _BINARY, noun="size", unit="byte", examples="64K, 128KB, 1M or 1470"
    )


def _parse_count(
    text: str | int | float,
    pattern: re.Pattern[str],
    prefixes: dict[str, int],
    *,
    noun: str,
    unit: str,
    examples: str,
) -> int:
    """A whole number of at least one unit, given bare or with a prefix from `prefixes`."""
    if isinstance(text, int | float) and not isinstance(text, bool):
        if text < 1:
            raise ValueError(f"a {noun} must be at least 1 {unit}, got {text}")
        return int(text)
    match = pattern.match(str(text))
    if not match:
        raise ValueError(f"not a {noun}: {text!r} (write e.g. {examples})")
    value = float(match["num"]) * prefixes[match["prefix"].lower()]
    if value < 1:  # 0.4 would round to nothing
        raise ValueError(f"a {noun} must be at least 1 {unit}, got {text!r}")
    return round(value)


def parse_delay(text: str | int | float) -> float:
    """'40ms', '0.04s', '40000us' -> seconds. A bare number is refused: 40 could be
    milliseconds or seconds, and a queue 1000 times too long is no small mistake."""
    match = _DELAY.match(str(text)) if isinstance(text, str) else None
    if not match:
        raise ValueError(f"not a delay: {text!r} (write it with its unit: 40ms, 0.04s or 40000us)")
    value = float(match["num"]) * _DELAY_UNITS[match["unit"]]
    if value <= 0:
        raise ValueError(f"a delay must be positive, got {text!r}")
    return value


def format_delay(seconds: float) -> str:
    """0.04 -> '40ms': how the plan and tc write a delay."""
    milliseconds = seconds * 1000
    if milliseconds >= 1:
        return f"{milliseconds:g}ms"
    return f"{seconds * 1e6:g}us"


def mbit(bits_per_second: float) -> float:
    return bits_per_second / 1e6


def format_rate(bits_per_second: float | None) -> str:
    """941500000 -> '941.5 Mbit/s'; picks the unit people expect for the magnitude."""
    if bits_per_second is None:
        return "-"
    for unit, scale in (("Gbit/s", 1e9), ("Mbit/s", 1e6), ("kbit/s", 1e3)):
        if bits_per_second >= scale * 10 or (unit == "Gbit/s" and bits_per_second >= scale):
            return f"{bits_per_second / scale:.{3 if unit == 'Gbit/s' else 1}f} {unit}"
    return f"{bits_per_second:.0f} bit/s"
