"""`wirespeed trend` in every format: a table per measurement of its groups (each label's
runs, their median and interval, the change against the group before with its interval
and verdict), the change points over time; the HTML page draws each measurement over the
runs with the groups' levels as steps and the change points marked."""

from __future__ import annotations

import html
import math
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from wirespeed.analysis.comparison_key import SeriesKey
from wirespeed.analysis.trend import (
    MIN_RUNS,
    SPLIT_SIDE,
    Change,
    ChangePoint,
    Judgement,
    Series,
    Trend,
)
from wirespeed.record_fields import fields
from wirespeed.report import json_text
from wirespeed.report.json_values import INTERVAL_FIGURES, interval_to_dict
from wirespeed.report.measure_text import scale_for, summary_text, value_text
from wirespeed.report.static_page import static_page
from wirespeed.report.text import markdown_table_safe, markdown_text, terminal_safe

FORMAT = "wirespeed-trend"
VERSION = 1
HEADINGS = ("Group", "Runs", "n", "Median", "Change", "95 % interval", "p", "Verdict")
MARK = {Change.REGRESSION: "!", Change.PROGRESSION: "+", Change.NO_CHANGE: "", Change.TOO_FEW: ""}


def legend(trend: Trend) -> str:
    effect = (
        "larger than the noise of the two groups (their larger CV)"
        if trend.min_effect.fraction is None
        else f"larger than {trend.min_effect.text}"
    )
    return (
        "Each group: the median of its runs' repetitions \N{PLUS-MINUS SIGN} the farther end "
        "of its 95 % interval; its change against the group above (difference of means), "
        f"with the {100 * (1 - trend.alpha):g} % interval of Welch's t-test. A regression or "
        f"progression is a change that the test tells from noise (p < {trend.alpha:g}) and "
        f"that is {effect}; with {MIN_RUNS} or more runs a group each run's median is one sample, "
        "else every repetition is; a group of 5 samples or more leaves its outliers out of "
        "the test. Change points: where the series' level moved, the best split of its runs "
        f"judged the same way ({SPLIT_SIDE} runs or more a side, p corrected for the splits "
        "tried)."
    )


def title_of(trend: Trend) -> str:
    by = f"by {trend.by}" if trend.by else "over time"
    return f"Trend {by}: {len(trend.series)} measurements of {trend.runs} runs"


def series_title(series: Series) -> str:
    arrow = "\N{UPWARDS ARROW}" if series.better.value == "higher" else "\N{DOWNWARDS ARROW}"
    return f"{series.test_id} {series.item} {arrow}"


def percent_text(judgement: Judgement | None) -> str:
    if judgement is None or judgement.percent is None:
        return ""
    sign = "+" if judgement.percent >= 0 else "\N{MINUS SIGN}"
    return f"{sign}{abs(judgement.percent):.1f} %"


def interval_text(judgement: Judgement | None) -> str:
    if judgement is None or judgement.interval is None:
        return ""
    low, high = (judgement.interval.low - 1) * 100, (judgement.interval.high - 1) * 100
    return f"{low:+.1f} \N{EN DASH} {high:+.1f} %".replace("-", "\N{MINUS SIGN}")


def p_text(judgement: Judgement | None) -> str:
    if judgement is None or judgement.p_value is None:
        return ""
    return f"{judgement.p_value:.3f}" if judgement.p_value >= 0.001 else "<0.001"


def verdict_text(judgement: Judgement | None) -> str:
    if judgement is None:
        return ""
    said = judgement.change.value + MARK[judgement.change]
    odd = sum(judgement.left_out)
    if odd:
        said += f" ({odd} outlier{'s' if odd > 1 else ''} left out)"
    return said


def group_rows(series: Series) -> list[list[str]]:
    """One row per group (unlabelled: none), then the baseline's."""
    rows = []
    before = {j.after: j for j in series.steps}
    for group in series.groups:
        step = before.get(group.name)
        runs = ", ".join(str(r) for r in group.run_ids)
        rows.append(
            [
                group.name,
                runs,
                str(group.summary.n),
                summary_text(group.summary, series.unit),
                percent_text(step),
                interval_text(step),
                p_text(step),
                verdict_text(step),
            ]
        )
    if series.baseline is not None:
        b = series.baseline
        rows.append(
            [
                f"{b.after} against {b.before}",
                "",
                "",
                "",
                percent_text(b),
                interval_text(b),
                p_text(b),
                verdict_text(b),
            ]
        )
    return rows


def signed_percent(percent: float) -> str:
    sign = "+" if percent >= 0 else "\N{MINUS SIGN}"
    return f"{sign}{abs(percent):.1f} %"


def change_point_text(series: Series, point: ChangePoint) -> str:
    sign = "+" if point.percent >= 0 else "\N{MINUS SIGN}"
    return (
        f"from run {point.run_id}: {value_text(point.before, series.unit)} \N{RIGHTWARDS ARROW} "
        f"{value_text(point.after, series.unit)} ({sign}{abs(point.percent):.1f} %, "
        f"{point.change.value})"
    )


def change_points_line(series: Series) -> str:
    if series.too_short_for_change_points:
        return (
            f"change points: too few runs to look for them ({len(series.points)}; "
            f"{2 * SPLIT_SIDE} or more)"
        )
    if not series.change_points:
        return f"change points: none in {len(series.points)} runs"
    return "change points: " + "; ".join(change_point_text(series, p) for p in series.change_points)


def notes(trend: Trend) -> list[str]:
    said = []
    if trend.unlabelled:
        runs = ", ".join(str(r) for r in trend.unlabelled)
        said.append(f"runs without a {trend.by} label, left out of the groups: {runs}")
    if not trend.series:
        said.append("no measurement was measured the same way by two runs or more")
    return said


NARROW = 100  # columns below which the table becomes a line per group


def narrow_line(row: list[str]) -> str:
    """A group's row as one line: its name, runs, n and median; its change with the
    change's interval, p and verdict."""
    name, runs, n, median, change, interval, p, verdict = row
    head = f"{name} (runs {runs}, n={n}): {median}" if runs else name
    size = f"{change} ({interval})" if interval else change
    tail = ", ".join(part for part in (size, f"p {p}" if p else "", verdict) if part)
    return f"{head}; {tail}" if tail else head


def render_trend_terminal(trend: Trend, console: Console) -> None:
    console.print(Text(terminal_safe(title_of(trend)), style="bold"))
    for note in notes(trend):
        console.print(Text(terminal_safe(f"  {note}")))
    for series in trend.series:
        console.print()
        console.print(Text(terminal_safe(series_title(series)), style="bold"))
        rows = group_rows(series)
        if rows and console.width < NARROW:
            # Eight columns do not fit a narrow terminal: a group a line, folded.
            for row in rows:
                console.print(Text(terminal_safe(narrow_line(row))))
        elif rows:
            table = Table()
            for index, heading in enumerate(HEADINGS):
                if index in (0, 1, 7):
                    table.add_column(heading, justify="left", overflow="fold")
                else:
                    table.add_column(heading, justify="right", overflow="fold")
            for row in rows:
                table.add_row(*(Text(terminal_safe(cell)) for cell in row))
            console.print(table)
        console.print(Text(terminal_safe(change_points_line(series))))
    console.print(Text(legend(trend)))


def render_trend_text(trend: Trend) -> str:
    import io

    buffer = io.StringIO()
    render_trend_terminal(trend, Console(file=buffer, width=120, no_color=True, highlight=False))
    return buffer.getvalue()


def render_trend_markdown(trend: Trend) -> str:
    lines = [f"# {markdown_text(title_of(trend))}", ""]
    lines += [f"- {markdown_text(note)}" for note in notes(trend)]
    for series in trend.series:
        lines += ["", f"## {markdown_text(series_title(series))}", ""]
        rows = group_rows(series)
        if rows:
            lines.append("| " + " | ".join(HEADINGS) + " |")
            lines.append("| --- | --- | --: | --: | --: | --: | --: | --- |")
            for row in rows:
                lines.append("| " + " | ".join(markdown_text(c) for c in row) + " |")
            lines.append("")
        lines.append(markdown_table_safe(change_points_line(series)))
    lines += ["", legend(trend)]
    return "\n".join(lines) + "\n"


def _judgement_dict(j: Judgement | None) -> dict[str, Any] | None:
    if j is None:
        return None
    return {
        "before": j.before,
        "after": j.after,
        "verdict": j.change.value,
        "ratio": j.ratio,
        "percent": j.percent,
        "interval": None
        if j.interval is None
        else {**fields(j.interval, INTERVAL_FIGURES), "method": "welch t-test"},
        "p_value": j.p_value,
        "noise": j.noise,
        "min_effect": j.min_effect,
        "samples": j.samples,
        "method": j.method,
        "outliers_left_out": {"before": j.left_out[0], "after": j.left_out[1]},
    }


def trend_to_dict(trend: Trend) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "version": VERSION,
        "by": trend.by,
        "alpha": trend.alpha,
        "min_effect": trend.min_effect.fraction,  # None: each comparison's noise
        "baseline": trend.baseline,
        "runs": trend.runs,
        "unlabelled_runs": list(trend.unlabelled),
        "regressions": len(trend.regressions()),
        "series": [_series_dict(s) for s in trend.series],
    }


def _key_dict(key: SeriesKey) -> dict[str, Any]:
    """The comparison key as JSON: the tool and its major version, the topology, the
    link's rate and MTU, and each of the test's settings the key holds (as text)."""
    compared = dict(key.compared)
    tool = compared.pop("tool")
    link = compared.pop("link", None)
    topology = compared.pop("topology", None)
    name, major = tool if isinstance(tool, tuple) else (tool, None)
    return {
        "tool": name,
        "tool_major": major,
        "settings": {part: str(value) for part, value in compared.items()},
        "path": key.path,
        "topology": topology,
        "link": dict(zip(("rate_bps", "mtu"), link, strict=True))
        if isinstance(link, tuple)
        else None,
        "variant": key.variant,
    }


def _series_dict(s: Series) -> dict[str, Any]:
    key = s.key
    return {
        "test_id": s.test_id,
        "test_name": s.test_name,
        "item": s.item,
        "name": key.name,
        "labels": dict(key.labels),
        "unit": s.unit,
        "better": s.better.value,
        "key": _key_dict(key),
        "runs": [
            {
                "run_id": p.run_id,
                "started_at": p.started_at,
                "group": p.group,
                "values": list(p.values),
                "median": p.median,
            }
            for p in s.points
        ],
        "groups": [
            {
                "name": g.name,
                "run_ids": list(g.run_ids),
                "n": g.summary.n,
                "median": g.summary.median,
                "interval": interval_to_dict(g.summary.interval),
                "cv": g.summary.cv,
            }
            for g in s.groups
        ],
        "steps": [_judgement_dict(j) for j in s.steps],
        "against_baseline": _judgement_dict(s.baseline),
        "newest": _judgement_dict(s.newest),
        "change_points_searched": not s.too_short_for_change_points,
        "change_points": [
            {
                "run_id": c.run_id,
                "before": c.before,
                "after": c.after,
                "percent": c.percent,
                "verdict": c.change.value,
            }
            for c in s.change_points
        ],
    }


def render_trend_json(trend: Trend) -> str:
    return json_text.indented(trend_to_dict(trend)) + "\n"


# -- HTML: a figure per measurement ----------------------------------------------------

WIDTH, HEIGHT = 640, 220
LEFT, RIGHT, TOP, BOTTOM = 70, 20, 16, 40
COLOURS = ("#2563eb", "#ea580c", "#16a34a", "#9333ea", "#0891b2", "#be123c")


def _figure(series: Series) -> str:
    """The runs' repetitions (dots) and medians, each group's median as a step across its
    runs, the change points as dashed lines."""
    points = series.points
    values = [v for p in points for v in p.values]
    low, high = min(values), max(values)
    pad = (high - low) * 0.15 or abs(high) * 0.05 or 1.0
    low, high = low - pad, high + pad
    divisor, unit = scale_for(max(abs(low), abs(high)), series.unit)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    step = plot_w / max(len(points), 1)

    def x(index: float) -> float:
        return LEFT + step * (index + 0.5)

    def y(value: float) -> float:
        return TOP + plot_h * (1 - (value - low) / (high - low))

    colour = {g.name: COLOURS[i % len(COLOURS)] for i, g in enumerate(series.groups)}
    parts = [
        f'<svg viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" role="img" '
        f'aria-label="{html.escape(series_title(series))}">',
        f'<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" fill="#f8fafc" '
        'stroke="#cbd5e1"/>',
    ]
    digits = _digits(high / divisor - low / divisor)
    for tick in range(5):
        value = low + (high - low) * tick / 4
        parts.append(
            f'<text x="{LEFT - 6}" y="{y(value) + 4:.1f}" text-anchor="end" class="tick">'
            f"{value / divisor:.{digits}f}</text>"
        )
    parts.append(
        f'<text x="12" y="{TOP + plot_h / 2}" class="tick" '
        f'transform="rotate(-90 12 {TOP + plot_h / 2})" text-anchor="middle">'
        f"{html.escape(unit)}</text>"
    )
    index_of = {p.run_id: i for i, p in enumerate(points)}
    for group in series.groups:
        spots = [index_of[r] for r in group.run_ids]
        level = y(group.summary.median)
        parts.append(
            f'<line class="step" x1="{x(min(spots)) - step / 2:.1f}" y1="{level:.1f}" '
            f'x2="{x(max(spots)) + step / 2:.1f}" y2="{level:.1f}" '
            f'stroke="{colour[group.name]}" stroke-width="3" opacity="0.6"/>'
        )
    for change in series.change_points:
        at = x(change.index) - step / 2
        parts.append(
            f'<line class="change-point" x1="{at:.1f}" y1="{TOP}" x2="{at:.1f}" '
            f'y2="{TOP + plot_h}" stroke="#dc2626" stroke-dasharray="5 4" stroke-width="2"/>'
            f'<text x="{at + 4:.1f}" y="{TOP + 12}" class="cp">'
            f"{html.escape(signed_percent(change.percent))}</text>"
        )
    for i, point in enumerate(points):
        fill = colour.get(point.group or "", "#475569")
        place = f"{x(i):.1f}"  # the run's place, the same for its dots, median and number
        dot = f'" r="3" fill="{fill}" opacity="0.5"/>'
        parts += [f'<circle cx="{place}" cy="{y(value):.1f}{dot}' for value in point.values]
        parts.append(
            f'<circle class="run" cx="{place}" cy="{y(point.median):.1f}" r="5" '
            f'fill="{fill}"><title>run {point.run_id}'
            f"{html.escape(f' ({point.group})' if point.group else '')}: "
            f"{html.escape(value_text(point.median, series.unit))}</title></circle>"
        )
        parts.append(
            f'<text x="{place}" y="{TOP + plot_h + 14}" text-anchor="middle" class="tick">'
            f"{point.run_id}</text>"
        )
    parts.append(
        f'<text x="{LEFT + plot_w / 2}" y="{HEIGHT - 6}" text-anchor="middle" class="tick">'
        "run</text>"
    )
    legend_x = LEFT + 6
    for group in series.groups:
        label = html.escape(group.name)
        parts.append(
            f'<rect x="{legend_x}" y="{TOP + plot_h - 16}" width="10" height="10" '
            f'fill="{colour[group.name]}"/><text x="{legend_x + 14}" y="{TOP + plot_h - 7}" '
            f'class="tick">{label}</text>'
        )
        legend_x += 22 + 7 * len(group.name)
    parts.append("</svg>")
    return "".join(parts)


def _digits(span: float) -> int:
    if span <= 0 or not math.isfinite(span):
        return 2
    return min(max(1 - math.floor(math.log10(span)), 0), 3)


# The same for every table of every page: its head, and each column's opening tag (the
# figures' columns right-aligned).
_HEAD = "".join(f"<th>{html.escape(h)}</th>" for h in HEADINGS)
_CELL_OPENINGS = tuple(f'<td class="{"num" if 1 < i < 7 else ""}">' for i in range(len(HEADINGS)))


def render_trend_html(trend: Trend) -> str:
    """A page of its own, with no script and nothing fetched: per measurement its figure
    and its table."""

    def e(text: object) -> str:
        return html.escape(str(text), quote=True)

    body = [f"<h1>{e(title_of(trend))}</h1>"]
    body += [f'<p class="note">{e(note)}</p>' for note in notes(trend)]
    for series in trend.series:
        body.append(f'<section class="series"><h2>{e(series_title(series))}</h2>')
        body.append(_figure(series))
        rows = group_rows(series)
        if rows:
            lines = []
            for row in rows:
                verdict = row[-1].split(" (")[0].rstrip("!+")
                cls = verdict.replace(" ", "-") if verdict else ""
                cells = "".join(
                    [
                        f"{opening}{html.escape(cell)}</td>"
                        for opening, cell in zip(_CELL_OPENINGS, row, strict=True)
                    ]
                )
                lines.append(f'<tr class="{cls}">{cells}</tr>')
            # A narrow screen scrolls the table, not the page.
            body.append(
                f'<div class="wide"><table><thead><tr>{_HEAD}</tr></thead>'
                f"<tbody>{''.join(lines)}</tbody></table></div>"
            )
        body.append(f"<p>{e(change_points_line(series))}</p></section>")
    body.append(f"<p>{e(legend(trend))}</p>")
    return static_page(
        title_of(trend),
        "body{font:14px system-ui,sans-serif;margin:2em;color:#1e293b}"
        "table{border-collapse:collapse;margin:.5em 0}th,td{border-bottom:1px solid #e2e8f0;"
        "padding:.3em .7em;vertical-align:top;text-align:left;white-space:nowrap}"
        ".num{text-align:right;"
        "font-variant-numeric:tabular-nums}p{max-width:60em;color:#475569}"
        "tr.regression td{background:#fee2e2}tr.progression td{background:#dcfce7}"
        ".wide{overflow-x:auto;max-width:100%}svg{max-width:100%;height:auto}.tick{font-size:11px;fill:#475569}"
        ".cp{font-size:11px;fill:#dc2626}",
        "".join(body),
    )
