"""Pure readings of a board's power: hwmon channels in watts, Raspberry Pi throttling.

hwmon (Documentation/hwmon/sysfs-interface.rst) numbers a chip's channels per kind:
power<N>_input in microwatts, curr<N>_input in milliamperes, in<N>_input in
millivolts. A power monitor such as the INA226 gives all three for its bus (in1, curr1,
power1; in0 is the shunt's voltage drop); the INA3221 gives no power attribute, only a
bus voltage and a current per channel (in1..3, curr1..3; in4..6 are the shunts), so a
channel's power is in<N> x curr<N> where the chip computes none itself.

`vcgencmd get_throttled` prints "throttled=0x50005": the low bits are the firmware's
state now, bits 16-19 whether the same happened at any time since boot (sticky).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

# sampling.sysfs.hwmon_readings keys: "hwmon0/power1" -> W, "hwmon0/curr1" -> A, ...
_KEY = re.compile(r"^(hwmon\d+)/(power|curr|in)(\d+)$")


def channel_power(
    readings: Mapping[str, float], names: Mapping[str, str] | None = None
) -> dict[str, float]:
    """ "hwmon0/1" -> watts of each channel that measures power or both volts and amps.

    names: "hwmon0" -> the chip's name; an INA3221's in4..in7 are its shunts (in
    microvolts) and curr4 the sum of its currents: no channel of their own."""
    kinds: dict[str, dict[str, float]] = {}
    for key, value in readings.items():
        match = _KEY.match(key)
        if match is None:
            continue
        chip, kind, number = match.groups()
        if (names or {}).get(chip) == "ina3221" and int(number) > 3:
            continue
        kinds.setdefault(f"{chip}/{number}", {})[kind] = value
    power: dict[str, float] = {}
    for channel, values in kinds.items():
        if "power" in values:
            power[channel] = values["power"]
        elif "in" in values and "curr" in values:
            # A negative current is a shunt wired the other way round: its size counts.
            power[channel] = abs(values["in"] * values["curr"])
    return power


# A channel labelled as the board's input measures everything the others do, and more.
_INPUT_LABEL = re.compile(r"(^|[_ ])V?IN$|(^|_)IN(_|$)|input", re.IGNORECASE)


def board_power(
    readings: Mapping[str, float],
    names: Mapping[str, str] | None = None,
    labels: Mapping[str, str] | None = None,
) -> float | None:
    """The board's watts: the channel labelled as its input (VDD_IN, POM_5V_IN) where
    one is, else the sum of every channel; None where no channel measures power.

    labels: "hwmon0/in1" -> "VDD_IN", as sampling.sysfs.device_info reads them. A sum
    counts a rail twice where one unlabelled channel feeds another: a meter
    (`power: meter:`) measures the board as a whole."""
    channels = channel_power(readings, names)
    if not channels:
        return None
    for channel in sorted(channels):
        chip, _, number = channel.partition("/")
        for kind in ("power", "in", "curr"):
            label = (labels or {}).get(f"{chip}/{kind}{number}", "")
            if label and _INPUT_LABEL.search(label):
                return channels[channel]
    return sum(channels.values())


# bit -> (what it means now, its name in a finding); bit + 16 is "has occurred".
THROTTLE_BITS: dict[int, str] = {
    0: "under-voltage",
    1: "arm frequency capped",
    2: "throttled",
    3: "soft temperature limit",
}
OCCURRED_SHIFT = 16


def parse_throttled(text: str) -> int | None:
    """The bits of `vcgencmd get_throttled` ("throttled=0x50005"); None if it said no
    such thing (an error, a firmware without the command)."""
    match = re.search(r"throttled=(0x[0-9a-fA-F]+|\d+)", text)
    if match is None:
        return None
    return int(match.group(1), 0)


@dataclass(frozen=True)
class ThrottleState:
    """What the bits say: conditions now, and conditions that happened since boot."""

    now: tuple[str, ...]
    occurred: tuple[str, ...]


def throttle_state(bits: int) -> ThrottleState:
    return ThrottleState(
        now=tuple(name for bit, name in THROTTLE_BITS.items() if bits >> bit & 1),
        occurred=tuple(
            name for bit, name in THROTTLE_BITS.items() if bits >> (bit + OCCURRED_SHIFT) & 1
        ),
    )


def during(first: int | None, readings: list[int]) -> tuple[str, ...]:
    """The conditions the board reported during a span: any seen now in a reading, or a
    "has occurred" bit that was clear at the first reading and set later."""
    seen: dict[str, None] = {}
    before = throttle_state(first).occurred if first is not None else ()
    for bits in readings:
        state = throttle_state(bits)
        for name in state.now:
            seen.setdefault(name)
        for name in state.occurred:
            if name not in before:
                seen.setdefault(name)
    return tuple(name for name in THROTTLE_BITS.values() if name in seen)
