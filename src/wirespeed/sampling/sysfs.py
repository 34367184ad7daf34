"""Pure parsers of the /sys files the sampler reads, keyed by their paths.

Units follow the kernel's sysfs ABI: thermal and hwmon temperatures in millidegrees
Celsius, cpufreq in kHz, hwmon power in microwatts, current in milliamperes and
voltage in millivolts. Everything leaves here in SI units (deg C, W, A, V) except
clocks, which stay in kHz like every cpufreq tool prints them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from wirespeed.sampling.model import CpuFreq, CpufreqPolicy, DeviceInfo, ThermalZone

THERMAL_DIR = "/sys/class/thermal/"
CPUFREQ_DIR = "/sys/devices/system/cpu/cpufreq/"
HWMON_DIR = "/sys/class/hwmon/"

_TRIP = re.compile(r"^trip_point_(\d+)_(temp|type)$")
_HWMON_INPUT = re.compile(r"^(power|curr|in|temp)(\d+)_input$")
_HWMON_LABEL = re.compile(r"^(power|curr|in|temp)(\d+)_label$")
# Divisors from sysfs units to SI: uW, mA, mV, m deg C.
_HWMON_SCALE = {"power": 1e6, "curr": 1e3, "in": 1e3, "temp": 1e3}


def _split(path: str, directory: str) -> tuple[str, str] | None:
    """("thermal_zone0", "temp") of "/sys/class/thermal/thermal_zone0/temp"."""
    if not path.startswith(directory):
        return None
    node, _, attribute = path[len(directory) :].partition("/")
    if not node or not attribute or "/" in attribute:
        return None
    return node, attribute


def _int(text: str) -> int | None:
    try:
        return int(text.strip())
    except ValueError:
        return None


def millidegrees(text: str) -> float | None:
    value = _int(text)
    return None if value is None else value / 1000.0


def temperatures(files: Mapping[str, str]) -> dict[str, float]:
    """Thermal zone -> deg C, from .../thermal_zoneN/temp."""
    result: dict[str, float] = {}
    for path, text in files.items():
        parts = _split(path, THERMAL_DIR)
        if parts is not None and parts[1] == "temp":
            value = millidegrees(text)
            if value is not None:
                result[parts[0]] = value
    return result


def clocks(files: Mapping[str, str]) -> dict[str, CpuFreq]:
    """Policy -> current clock and limits, from scaling_{cur,min,max}_freq."""
    values: dict[str, dict[str, int | None]] = {}
    for path, text in files.items():
        parts = _split(path, CPUFREQ_DIR)
        if parts is None:
            continue
        policy, attribute = parts
        key = {
            "scaling_cur_freq": "cur_khz",
            "scaling_min_freq": "min_khz",
            "scaling_max_freq": "max_khz",
        }.get(attribute)
        if key is not None:
            values.setdefault(policy, {})[key] = _int(text)
    return {policy: CpuFreq(**fields) for policy, fields in values.items()}


def hwmon_readings(files: Mapping[str, str]) -> dict[str, float]:
    """ "hwmon0/power1" -> watts (curr: amperes, in: volts, temp: deg C)."""
    result: dict[str, float] = {}
    for path, text in files.items():
        parts = _split(path, HWMON_DIR)
        if parts is None:
            continue
        match = _HWMON_INPUT.match(parts[1])
        value = _int(text)
        if match is not None and value is not None:
            kind, number = match.groups()
            result[f"{parts[0]}/{kind}{number}"] = value / _HWMON_SCALE[kind]
    return result


def _cpu_list(text: str) -> tuple[int, ...]:
    """affected_cpus: "4 5" (some kernels write ranges like related_cpus: "0-3")."""
    cpus: list[int] = []
    for token in text.replace(",", " ").split():
        low, dash, high = token.partition("-")
        if dash:
            cpus.extend(range(int(low), int(high) + 1))
        elif token.isdigit():
            cpus.append(int(token))
    return tuple(cpus)


def device_info(files: Mapping[str, str]) -> DeviceInfo:
    """Names and limits from the files the sampler reads once."""
    zone_types: dict[str, str] = {}
    trips: dict[str, dict[int, dict[str, str]]] = {}
    policies: dict[str, dict[str, str]] = {}
    hwmon_names: dict[str, str] = {}
    hwmon_labels: dict[str, str] = {}
    for path, text in files.items():
        if (thermal := _split(path, THERMAL_DIR)) is not None:
            zone, attribute = thermal
            if attribute == "type":
                zone_types[zone] = text.strip()
            elif (trip := _TRIP.match(attribute)) is not None:
                number, kind = int(trip.group(1)), trip.group(2)
                trips.setdefault(zone, {}).setdefault(number, {})[kind] = text.strip()
        elif (cpufreq := _split(path, CPUFREQ_DIR)) is not None:
            policies.setdefault(cpufreq[0], {})[cpufreq[1]] = text
        elif (hwmon := _split(path, HWMON_DIR)) is not None:
            if hwmon[1] == "name":
                hwmon_names[hwmon[0]] = text.strip()
            elif (label := _HWMON_LABEL.match(hwmon[1])) is not None:
                hwmon_labels[f"{hwmon[0]}/{label.group(1)}{label.group(2)}"] = text.strip()
    zones = []
    points: list[tuple[str, float]]
    for zone in sorted(set(zone_types) | set(trips), key=_natural):
        points = []
        for number in sorted(trips.get(zone, {})):
            point = trips[zone][number]
            temperature = millidegrees(point.get("temp", ""))
            if temperature is not None:
                points.append((point.get("type", ""), temperature))
        zones.append(ThermalZone(zone, zone_types.get(zone, ""), tuple(points)))
    return DeviceInfo(
        thermal_zones=tuple(zones),
        policies=tuple(
            CpufreqPolicy(
                name,
                _cpu_list(attributes.get("affected_cpus", "")),
                _int(attributes.get("cpuinfo_min_freq", "")),
                _int(attributes.get("cpuinfo_max_freq", "")),
            )
            for name, attributes in sorted(policies.items(), key=lambda item: _natural(item[0]))
        ),
        hwmon_names=hwmon_names,
        hwmon_labels=hwmon_labels,
    )


def _natural(name: str) -> tuple[str, int]:
    """thermal_zone2 before thermal_zone10."""
    match = re.match(r"^(.*?)(\d+)$", name)
    return (match.group(1), int(match.group(2))) if match else (name, -1)
