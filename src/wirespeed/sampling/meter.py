"""Pure parsing of a power meter's output: what a USB meter, a smart plug or a lab
supply's command prints, in watts.

One reading per run of the command: "4.2" or "4.2 W" (watts; "mW" and "kW" too), or a
current and a voltage ("1.02 A 5.1 V", "5.1V 1.02A", "1020 mA"), whose product is the
power. The first number with a unit of each kind counts; a bare number is watts. Anything
else is no reading (None), which the caller turns into a warning.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

_NUMBER = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
_QUANTITY = re.compile(rf"({_NUMBER})\s*(mW|kW|W|mA|A|mV|V)?(?![A-Za-z])")
_SCALE = {"W": 1.0, "mW": 1e-3, "kW": 1e3, "A": 1.0, "mA": 1e-3, "V": 1.0, "mV": 1e-3}


def parse_meter(text: str) -> float | None:
    """Watts from one run's output, or None when it holds no reading."""
    watts: float | None = None
    amps: float | None = None
    volts: float | None = None
    bare: float | None = None
    bares = 0  # numbers without a unit: one is watts, several say nothing certain
    for match in _QUANTITY.finditer(text):
        value, unit = float(match.group(1)), match.group(2)
        if not math.isfinite(value):
            continue
        if unit is None:
            bares += 1
            bare = value
            continue
        value *= _SCALE[unit]
        if unit.endswith("W") and watts is None:
            watts = value
        elif unit.endswith("A") and amps is None:
            amps = value
        elif unit.endswith("V") and volts is None:
            volts = value
    if watts is not None:
        return watts
    if amps is not None and volts is not None:
        return abs(amps * volts)
    if amps is None and volts is None and bares == 1:
        return bare
    return None


# The meter's readings during one trial, as a trial keeps them (its RawOutput's text):
#   @@meter 1                      the format version
#   0.012<TAB>4.2<TAB>4.2 W        seconds since the idle baseline began, watts ("-": no
#                                  reading), the command's output on one line
#   @@load 3.004                   the traffic started: readings before are the idle ones
#   @@end 5.120                    the traffic ended
METER_LOG_VERSION = 1
# How a trial's outputs name the meter's log (RawOutput.host and .format).
METER_HOST = "power meter"
METER_FORMAT = "meter"


@dataclass(frozen=True)
class MeterLog:
    readings: tuple[tuple[float, float | None], ...]  # (seconds, watts or None)
    load_start: float | None = None
    load_end: float | None = None

    def idle(self) -> tuple[float, ...]:
        """The watts read before the traffic started."""
        if self.load_start is None:
            return ()
        return tuple(w for t, w in self.readings if w is not None and t < self.load_start)

    def load(self) -> tuple[float, ...]:
        """The watts read while the traffic ran."""
        if self.load_start is None:
            return ()
        end = self.load_end if self.load_end is not None else math.inf
        return tuple(w for t, w in self.readings if w is not None and self.load_start <= t <= end)


def format_reading(t: float, watts: float | None, output: str) -> str:
    said = " ".join(output.split())
    return f"{t:.3f}\t{'-' if watts is None else repr(watts)}\t{said}\n"


def parse_meter_log(text: str) -> MeterLog:
    readings: list[tuple[float, float | None]] = []
    marks: dict[str, float] = {}
    for line in text.splitlines():
        if line.startswith("@@"):
            marker, _, value = line[2:].partition(" ")
            if marker in ("load", "end"):
                try:
                    marks[marker] = float(value)
                except ValueError:
                    continue
            continue
        fields = line.split("\t")
        if len(fields) < 2:
            continue
        try:
            t = float(fields[0])
            watts = None if fields[1] == "-" else float(fields[1])
        except ValueError:
            continue
        readings.append((t, watts))
    return MeterLog(tuple(readings), marks.get("load"), marks.get("end"))
