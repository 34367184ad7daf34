"""Measurements said in words: a value in its unit, scaled for reading, with its spread.

Units are the measurement's own; only rates are scaled (B/s to kB/s, MB/s, GB/s, SI as
openssl's "k" is; bit/s to Mbit/s ...). Everything else (MIPS, index, lps) is shown as
measured: those are the figures people compare across boards.
"""

from __future__ import annotations

import math

from wirespeed.analysis.latency import GRADE_UNIT, grade
from wirespeed.analysis.stats import Summary
from wirespeed.model import Better
from wirespeed.report.measured import MeasuredCell, MeasuredRow
from wirespeed.report.text import FAILED, note_marks, repetitions_text

_SCALES: dict[str, tuple[tuple[float, str], ...]] = {
    "B/s": ((1e9, "GB/s"), (1e6, "MB/s"), (1e3, "kB/s"), (1.0, "B/s")),
    "bit/s": ((1e9, "Gbit/s"), (1e6, "Mbit/s"), (1e3, "kbit/s"), (1.0, "bit/s")),
}

# Units counted in whole things, shown whole with thousands grouped as people write
# packet rates ("14,998 pps"); a count's name says what it counts ("search trials 8").
_WHOLE = {"pps": "pps", "count": ""}

LEGEND = (
    "Benchmarks: of k repetitions, the median \N{PLUS-MINUS SIGN} its distance to the "
    "farther end of its 95 % bootstrap interval (n=k, CV = standard deviation / mean); "
    "\N{UPWARDS ARROW} higher is better, \N{DOWNWARDS ARROW} lower is better."
)


def scale_for(value: float, unit: str) -> tuple[float, str]:
    """The divisor and unit to show `value` in: (1e6, "MB/s") for 92,054,870 B/s."""
    scales = _SCALES.get(unit)
    if not scales:
        return 1.0, unit
    # The largest unit that keeps two digits before the point: 1282.5 MB/s rather than
    # 1.28 GB/s, whose spread would round to nothing (openssl's figures span 10-10,000 MB/s).
    for index, (divisor, shown) in enumerate(scales):
        if abs(value) >= divisor:
            if abs(value) < 10 * divisor and index + 1 < len(scales):
                return scales[index + 1]
            return divisor, shown
    return scales[-1]


def _digits(value: float) -> int:
    """Four significant figures, at most two decimals: 1282.52 MB/s, 92.05, 400.8."""
    if value == 0:
        return 0
    return min(max(3 - math.floor(math.log10(abs(value))), 0), 2)


def _whole(value: float, unit: str) -> str:
    return f"{value:,.0f} {_WHOLE[unit]}".rstrip()


def value_text(value: float, unit: str) -> str:
    if unit in _WHOLE:
        return _whole(value, unit)
    if unit == GRADE_UNIT:
        return f"{grade(value)} ({value:.{_digits(value)}f} ms)"
    divisor, shown = scale_for(value, unit)
    scaled = value / divisor
    return f"{scaled:.{_digits(scaled)}f} {shown}".rstrip()


def summary_text(summary: Summary, unit: str) -> str:
    """ "1282.5 \N{PLUS-MINUS SIGN}0.4 MB/s" over repetitions, "1282.52 MB/s" for one."""
    interval = summary.interval
    if unit == GRADE_UNIT:  # the letter of the median increase, then its figure in ms
        return f"{grade(summary.median)} ({summary_text(summary, 'ms')})"
    if unit in _WHOLE:
        if interval is None:
            return _whole(summary.median, unit)
        reach = max(summary.median - interval.low, interval.high - summary.median)
        return f"{summary.median:,.0f} \N{PLUS-MINUS SIGN}{_whole(reach, unit)}"
    divisor, shown = scale_for(summary.median, unit)
    median = summary.median / divisor
    if interval is None:
        return f"{median:.{_digits(median)}f} {shown}".rstrip()
    reach = max(summary.median - interval.low, interval.high - summary.median) / divisor
    digits = _digits(median) if reach == 0 else min(max(-math.floor(math.log10(reach)), 0), 2)
    return f"{median:.{digits}f} \N{PLUS-MINUS SIGN}{reach:.{digits}f} {shown}".rstrip()


def item_text(row: MeasuredRow) -> str:
    """ "openssl: AES-128-CBC 1 KB, EVP \N{UPWARDS ARROW}"."""
    arrow = "\N{UPWARDS ARROW}" if row.better is Better.HIGHER else "\N{DOWNWARDS ARROW}"
    return f"{row.test_id} {row.item} {arrow}" if row.unit else f"{row.test_id} {row.test_name}"


def measured_cell_lines(cell: MeasuredCell | None, unit: str) -> list[str]:
    if cell is None:
        return [""]
    summary = cell.summary
    if summary is None:
        lines = [FAILED]
    else:
        lines = [summary_text(summary, unit)]
        if summary.n > 1:
            lines.append(repetitions_text(summary))
        if cell.trials_failed:
            lines.append(f"{cell.trials_failed} failed")
    if cell.notes:
        lines[-1] += " " + note_marks(cell.notes)
    return lines
