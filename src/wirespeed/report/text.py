"""How figures read in tables: shared by the terminal and Markdown renderers."""

from __future__ import annotations

import html
import math
import re
from datetime import UTC, datetime

from wirespeed.analysis.ceiling import Ceiling, link_rate_text
from wirespeed.analysis.expectations import Verdict
from wirespeed.analysis.stats import Summary
from wirespeed.model import Flow, LinkModel, PathSpec
from wirespeed.report.budgets import Budget, budgets_text
from wirespeed.report.content import Cell, Column, DeviceLoad, FlowFigure, Report, cv_text
from wirespeed.report.provenance_text import provenance_lines as provenance_words
from wirespeed.store.records import HostInfo

ARROWS = {Flow.UP: "\N{UPWARDS ARROW}", Flow.DOWN: "\N{DOWNWARDS ARROW}"}
DASH = "\N{EN DASH}"
FAILED = "failed"  # a cell's first line when none of its trials measured anything
LEGEND = (
    "Mbit/s: goodput (receiver side) / physical ceiling of the link (LIMITS.md); "
    "\N{UPWARDS ARROW} client to server, \N{DOWNWARDS ARROW} server to client; "
    "of k repetitions: the median \N{PLUS-MINUS SIGN} its distance to the farther end of "
    "its 95 % bootstrap interval (n=k, CV = standard deviation / mean); "
    f"{DASH}: no ceiling, the link rate is unknown."
)
SINGLE_RUN_ALL = (
    "Single run: each figure is one repetition, with no spread or interval to judge it by "
    "(`wirespeed run --repeat 5` measures both)."
)
SINGLE_RUN_SOME = "Figures without (n=k) are a single run: no spread or interval."

# Characters that act on a terminal instead of showing on it: the C0 controls (ESC starts
# the sequences that move the cursor, clear the screen or set the window title), DEL, the
# C1 controls (0x9b is a one-byte ESC [ to some terminals) and the bidirectional formatting
# characters, which reorder the text after them so that a line reads other than it is.
_TERMINAL_CONTROLS = re.compile(
    r"[\x00-\x1f\x7f-\x9f"  # C0, DEL, C1
    r"\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"  # bidi marks, embeddings, isolates
)
# CommonMark ends a line at LF, CR or CR LF: any of them would end a table row or start a
# new block, where a line of its own can be raw HTML.
_LINE_BREAKS = re.compile(r"\r\n?|\n")


def mbit_text(bits_per_second: float) -> str:
    """Measured figures as people copy them (941), with digits only where they matter."""
    mbit = bits_per_second / 1e6
    digits = 0 if mbit >= 100 else 1 if mbit >= 10 else 2
    return f"{mbit:.{digits}f}"


def ceiling_mbit(ceiling: Ceiling) -> float:
    """The ceiling in Mbit/s as every report shows it (the tables and the HTML page's
    plots alike), rounded once: one decimal, as in LIMITS.md: 941.5 is the TCP
    ceiling, 941 a measurement below it."""
    return round(ceiling.bits_per_second / 1e6, 1)


def ceiling_text(figure: FlowFigure) -> str:
    return DASH if figure.ceiling is None else f"{ceiling_mbit(figure.ceiling):.1f}"


def loss_text(percent: float) -> str:
    if percent == 0:
        return "0 %"
    if percent < 0.01:
        return "<0.01 %"
    if percent >= 99.5:
        # iperf prints all of these as 1e+02%: show the digits it hides, and never round
        # up to 100, since "nothing arrived" would be news.
        if percent < 100 and round(percent, 2) >= 100:
            return ">99.99 %"
        return f"{percent:.2f} %"
    return f"{percent:.2f} %" if percent < 10 else f"{percent:.1f} %"


# A cell's line when the plan expects something of it; its notes say expected vs measured.
VERDICT_MARKS = {
    Verdict.MET: "\N{CHECK MARK} expectation met",
    Verdict.NOT_MET: "\N{BALLOT X} expectation not met",
    Verdict.NOT_MEASURED: "? expectation not measured",
}


def note_marks(numbers: tuple[int, ...]) -> str:
    return "".join(f"[{n}]" for n in numbers)


def cell_lines(
    cell: Cell | None, single_flow_arrow: bool = False, budgets: tuple[Budget, ...] = ()
) -> list[str]:
    """A cell as lines, one per flow: '941 / 941.5', '↓ 915 / 941.5, loss 0.03 %',
    '941.2 ±0.4 / 941.5 (n=5, CV 0.1 %)' over repetitions; with `budgets` (`--as`), the
    median said as each on the line after it: '= 29.4 Msps sc16'."""
    if cell is None:
        return [""]
    if cell.trials_ok == 0:
        lines = [FAILED]
    else:
        lines = []
        for figure in cell.flows:
            lines.append(_flow_line(cell, figure, single_flow_arrow))
            if budgets and figure.summary is not None:  # on a line of its own: tables stay narrow
                lines.append(budgets_text(budgets, figure.summary.median))
    if cell.device is not None:
        lines.append(device_text(cell.device))
    if cell.verdict is not None:
        lines.append(VERDICT_MARKS[cell.verdict])
    if cell.notes:
        lines[-1] += " " + note_marks(cell.notes)
    return lines


def device_text(device: DeviceLoad) -> str:
    """'DUT cpu1 99 % (softirq 97 %), 48 °C': the busiest core of the device under test."""
    text = (
        f"DUT cpu{device.busiest_cpu} {device.busy_pct:.0f} % (softirq {device.softirq_pct:.0f} %)"
    )
    if device.temperature_max_c is not None:
        text += f", {device.temperature_max_c:.0f} °C"
    return text


def spread_text(summary: Summary) -> str:
    """'941.2 \N{PLUS-MINUS SIGN}0.4': the median and the farther end of its interval.

    The farther end, because a bootstrap interval of a median is rarely symmetric and a
    reader should not be told it is tighter than it is; exports carry both ends. The
    digits follow the spread: a figure is shown to the place its uncertainty reaches.
    """
    interval = summary.interval
    assert interval is not None, "a summary of one value has no spread"
    reach = max(summary.median - interval.low, interval.high - summary.median) / 1e6
    if reach == 0:
        return f"{mbit_text(summary.median)} \N{PLUS-MINUS SIGN}0"
    digits = min(max(-math.floor(math.log10(reach)), 0), 2)
    return f"{summary.median / 1e6:.{digits}f} \N{PLUS-MINUS SIGN}{reach:.{digits}f}"


def repetitions_text(summary: Summary) -> str:
    """'(n=5, CV 0.1 %)': how many repetitions, and how much they varied."""
    if summary.cv is None:
        return f"(n={summary.n})"
    return f"(n={summary.n}, {cv_text(summary.cv)})"


def _flow_line(cell: Cell, figure: FlowFigure, single_flow_arrow: bool) -> str:
    arrow = ARROWS[figure.flow] + " "
    if len(cell.flows) == 1 and figure.flow is Flow.UP and not single_flow_arrow:
        arrow = ""
    summary = figure.summary
    if summary is None:
        return f"{arrow}{DASH}"
    several = summary.n > 1
    value = spread_text(summary) if several else mbit_text(summary.median)
    text = f"{arrow}{value} / {ceiling_text(figure)}"
    if figure.loss_percent is not None:
        text += f", loss {loss_text(figure.loss_percent)}"
    if several:
        text += " " + repetitions_text(summary)
    return text


def single_run_text(report: Report) -> str | None:
    """Said once per report: which figures rest on one repetition only."""
    counts = [f.n for row in report.rows for cell in row.cells if cell for f in cell.flows]
    measured = [n for n in counts if n > 0]
    if not measured or all(n > 1 for n in measured):
        return None
    return SINGLE_RUN_ALL if all(n == 1 for n in measured) else SINGLE_RUN_SOME


def when(unix_time: float | None) -> str:
    if unix_time is None:
        return DASH
    return datetime.fromtimestamp(unix_time, tz=UTC).strftime("%Y-%m-%d %H:%M UTC")


def duration_text(seconds: float) -> str:
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    if hours:
        return f"{hours} h {minutes} min"
    return f"{minutes} min {secs} s" if minutes else f"{secs} s"


def run_line(report: Report) -> str:
    parts = [f"run {report.run_id}", when(report.info.started_at)]
    if report.finished_at is not None:
        parts.append(duration_text(report.finished_at - report.info.started_at))
    parts += [report.status.value, f"wirespeed {report.info.wirespeed_version}"]
    return ", ".join(parts)


def link_text(link: LinkModel | None) -> str:
    if link is None:
        return "link unknown"
    if link.rate_bps is None:
        return f"{link.name} (unshaped), MTU {link.mtu}"
    return f"{link.name} ({link_rate_text(link.rate_bps)}), MTU {link.mtu}"


def column_text(column: Column, path: PathSpec | None = None) -> str:
    where = ""
    if path is not None:
        via = f" via {path.dut}" if path.dut and path.dut not in (path.server,) else ""
        where = f" {path.client} \N{RIGHTWARDS ARROW} {path.server}{via}, {path.topology.value};"
        if path.tunnel is not None:  # its MTUs are the variant's: the cell's notes say them
            ends = "to the DUT" if path.tunnel.ends.value == "dut" else "through the DUT"
            where = f"{where[:-1]}, {path.tunnel.kind.value} tunnel {ends};"
    return f"{column.label}:{where} {link_text(column.link)}"


def host_tools(host: HostInfo) -> str:
    return ", ".join(f"{tool} {version}" for tool, version in host.tools.items())


def provenance_lines(report: Report) -> list[str]:
    """The run's other provenance (labs, variants, imported files ...) in words, one
    short line per item."""
    return provenance_words(report.info.provenance)


def paths_of(report: Report) -> dict[str, PathSpec]:
    return {d.outcome.trial.path.name: d.outcome.trial.path for d in report.trials}


def _escaped_character(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_safe(text: str) -> str:
    """Text from a plan, a device or the store, safe to print: each control character
    shown as its escape, '\\x1b' or '\\u202e'.

    An escape rather than one replacement character, because it tells which character
    arrived (an ANSI colour code in an OS string reads differently from a stray byte) and
    it is ASCII, which every terminal and locale shows.
    """
    return _TERMINAL_CONTROLS.sub(_escaped_character, text)


# What an HTML page must not pass as it is: the controls and the bidi formatting
# characters (a U+202E in a title shows the rest of it reversed), but not the tab and
# line breaks a page lays out as white space.
_HIDDEN_IN_HTML = re.compile(
    r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"
)


def html_visible(text: str) -> str:
    """Text for an HTML page (before html.escape): each control or bidi formatting
    character shown as its escape, as terminal_safe shows it."""
    return _HIDDEN_IN_HTML.sub(_escaped_character, text)


def one_line(text: str) -> str:
    """Line breaks as spaces: in Markdown a break would end a table row or start a block."""
    return _LINE_BREAKS.sub(" ", text)


def markdown_table_safe(text: str) -> str:
    """Our own words in a Markdown table cell: a pipe would end the cell, a line break the
    row. They keep their '<' as written ('p < 0.05', '<0.01 %'), which is no tag."""
    return one_line(text).replace("|", "\\|")


def markdown_text(text: str) -> str:
    """Text from a plan, a device or the store, in Markdown: shown as written, never raw
    HTML (viewers render '<img onerror=...>' as it stands), never a link or an image (a
    name '![x](http://…)' would load that address in the reader's viewer), and safe in a
    table cell."""
    escaped = html.escape(text, quote=False).replace("[", "\\[").replace("]", "\\]")
    # What would act on the reader instead of showing (a bidi override reorders the rest
    # of the line; ESC rewrites a terminal that `cat`s the file): shown as its escape.
    return terminal_safe(markdown_table_safe(escaped))
