"""How figures read in tables: shared by the terminal and Markdown renderers."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from wirespeed.analysis.ceiling import link_rate_text
from wirespeed.model import Flow, LinkModel, PathSpec
from wirespeed.report.model import Cell, Column, FlowFigure, Report
from wirespeed.store.records import HostInfo

ARROWS = {Flow.UP: "\N{UPWARDS ARROW}", Flow.DOWN: "\N{DOWNWARDS ARROW}"}
DASH = "\N{EN DASH}"
LEGEND = (
    "Mbit/s: goodput (receiver side) / physical ceiling of the link (LIMITS.md); "
    "\N{UPWARDS ARROW} client to server, \N{DOWNWARDS ARROW} server to client; "
    f"(n=k): median of k repetitions; {DASH}: no ceiling, the link rate is unknown."
)


def mbit_text(bits_per_second: float) -> str:
    """Measured figures as people copy them (941), with digits only where they matter."""
    mbit = bits_per_second / 1e6
    if mbit >= 100:
        return f"{mbit:.0f}"
    if mbit >= 10:
        return f"{mbit:.1f}"
    return f"{mbit:.2f}"


def ceiling_text(figure: FlowFigure) -> str:
    # One decimal, as in LIMITS.md: 941.5 is the TCP ceiling, 941 a measurement below it.
    return DASH if figure.ceiling is None else f"{figure.ceiling.bits_per_second / 1e6:.1f}"


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


def note_marks(numbers: tuple[int, ...]) -> str:
    return "".join(f"[{n}]" for n in numbers)


def cell_lines(cell: Cell | None, single_flow_arrow: bool = False) -> list[str]:
    """A cell as lines, one per flow: '941 / 941.5', '↓ 915 / 941.5, loss 0.03 %'."""
    if cell is None:
        return [""]
    if cell.trials_ok == 0:
        lines = ["failed"]
    else:
        lines = [_flow_line(cell, figure, single_flow_arrow) for figure in cell.flows]
    suffix = ""
    if cell.n > 1:
        suffix += f" (n={cell.n})"
    if cell.notes:
        suffix += " " + note_marks(cell.notes)
    lines[-1] += suffix
    return lines


def _flow_line(cell: Cell, figure: FlowFigure, single_flow_arrow: bool) -> str:
    arrow = ARROWS[figure.flow] + " "
    if len(cell.flows) == 1 and figure.flow is Flow.UP and not single_flow_arrow:
        arrow = ""
    if figure.goodput_bps is None:
        text = f"{arrow}{DASH}"
    else:
        text = f"{arrow}{mbit_text(figure.goodput_bps)} / {ceiling_text(figure)}"
    if figure.loss_percent is not None:
        text += f", loss {loss_text(figure.loss_percent)}"
    return text


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
    return f"{column.label}:{where} {link_text(column.link)}"


def host_tools(host: HostInfo) -> str:
    return ", ".join(f"{tool} {version}" for tool, version in host.tools.items())


def _facts(value: Any) -> str:
    if isinstance(value, Mapping):
        return ", ".join(f"{k} {v}" for k, v in value.items() if v is not None)
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value)
    return str(value)


def provenance_lines(report: Report) -> list[str]:
    """The run's other provenance (labs, imported files ...), one short line per item."""
    lines = []
    for key, value in report.info.provenance.items():
        if key == "hosts":
            continue  # shown as a table of HostInfo
        if isinstance(value, Mapping) and all(isinstance(v, Mapping) for v in value.values()):
            lines += [f"{key} {name}: {_facts(facts)}" for name, facts in value.items()]
        else:
            lines.append(f"{key}: {_facts(value)}")
    return lines


def paths_of(report: Report) -> dict[str, PathSpec]:
    return {d.outcome.trial.path.name: d.outcome.trial.path for d in report.trials}
