"""The HTML report's latency section: per probed trial, its probes' round trips over
time (idle, then under load) and their distribution (CDF), drawn as inline SVG (no
script, no request).

The probes' raw outputs (side `probe`, the idle phase first) are parsed again here: the
report keeps no series of its own. A run loaded without its outputs has no section.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from html import escape

from wirespeed.model import RawOutput, Side, TrialOutcome
from wirespeed.tools import irtt, ping
from wirespeed.tools.probing import (
    END_MARGIN_SECONDS,
    IDLE_SECONDS,
    ProbeSeries,
    loaded_window,
)

WIDTH, HEIGHT = 560, 220
LEFT, BOTTOM, TOP, RIGHT = 48, 32, 10, 12
COLOURS = {"idle": "#0f9d76", "loaded": "#c92a2a"}


def probe_series(raw: RawOutput) -> ProbeSeries | None:
    """A probe output's series; None where it holds none (a failed prober)."""
    try:
        if raw.argv and raw.argv[0].endswith(irtt.PROGRAM):
            return irtt.parse(raw.text)
        return ping.parse(raw.text)
    except ValueError:
        return None


Parsed = list[tuple[str, RawOutput, ProbeSeries | None]]


def parsed_probes(outcome: TrialOutcome) -> Parsed:
    """Each phase's label, probe output and its series (None: none in it), the idle phase
    first: parsed once for both charts (an irtt output is ~1 ms of JSON)."""
    probes = [raw for raw in outcome.raw if raw.side is Side.PROBE and raw.text]
    return [
        (label, raw, probe_series(raw))
        for label, raw in zip(("idle", "loaded"), probes, strict=False)
    ]


def phases(outcome: TrialOutcome, parsed: Parsed | None = None) -> list[tuple[str, ProbeSeries]]:
    """The phases with answered probes; `parsed`: the outcome's `parsed_probes`."""
    return [
        (label, series)
        for label, _, series in (parsed_probes(outcome) if parsed is None else parsed)
        if series is not None and series.rtt_ms
    ]


def phase_seconds(raw: RawOutput) -> float | None:
    """How long a phase's prober ran, from its argv: irtt's `-d 4500ms`, ping's `-w 4`."""
    argv = list(raw.argv)
    for flag, scale in (("-d", 1e-3), ("-w", 1.0)):
        if flag in argv[:-1]:
            found = re.fullmatch(r"([0-9.]+)(ms)?", argv[argv.index(flag) + 1])
            if found is not None:
                return float(found[1]) * (scale if found[2] or flag == "-w" else 1.0)
    return None


def timeline(
    outcome: TrialOutcome, parsed: Parsed | None = None
) -> list[tuple[str, list[tuple[float, float]]]]:
    """Each phase's (seconds, round trip ms) of its answered probes, on one clock: the
    idle phase from 0, the loaded one from where in the load it started (the trial's
    own schedule, run/probes.py). A probe's time is its place in the phase, as the
    prober sends at an even pace: its share of the phase's duration. `parsed`: the
    outcome's `parsed_probes`."""
    found: list[tuple[str, list[tuple[float, float]]]] = []
    duration = outcome.trial.test.spec.duration
    for label, raw, series in parsed_probes(outcome) if parsed is None else parsed:
        seconds = phase_seconds(raw)
        if series is None or not series.seq or not seconds or series.sent == 0:
            continue
        # The loaded probes end END_MARGIN_SECONDS before the load: their start follows
        # from their length, whether a warmup (loaded_window) or a ramp (RRUL's
        # until_stable) decided it.
        start = (
            0.0
            if label == "idle"
            else IDLE_SECONDS
            + max(duration - END_MARGIN_SECONDS - seconds, loaded_window(duration)[0])
        )
        step = seconds / series.sent
        found.append(
            (
                label,
                [(start + p * step, ms) for p, ms in zip(series.seq, series.rtt_ms, strict=True)],
            )
        )
    return found


def _chart_opening(title: str) -> str:
    """A chart's <svg> opening tag and its two axes."""
    return (
        f'<svg viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" role="img" '
        f'aria-label="{escape(title)}">'
        f'<line x1="{LEFT}" y1="{HEIGHT - BOTTOM}" x2="{WIDTH - RIGHT}" y2="{HEIGHT - BOTTOM}" '
        'stroke="#999"/>'
        f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{HEIGHT - BOTTOM}" stroke="#999"/>'
    )


def timeline_svg(phases_: Sequence[tuple[str, list[tuple[float, float]]]], title: str) -> str:
    """Round trip (vertical) over time (horizontal): the load shows as a step up."""
    points = [p for _, series in phases_ for p in series]
    right = max(t for t, _ in points) * 1.02 or 1.0
    top = max(ms for _, ms in points) * 1.05 or 1.0
    span_x, span_y = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    ticks = []
    for step in range(5):
        x = LEFT + span_x * step / 4
        ticks.append(
            f'<text x="{x:.1f}" y="{HEIGHT - 12}" text-anchor="middle" font-size="11">'
            f"{right * step / 4:.3g}</text>"
        )
        y = TOP + span_y * (1 - step / 4)
        ticks.append(
            f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="11">'
            f"{top * step / 4:.3g}</text>"
        )
    lines = "".join(
        f'<polyline fill="none" stroke="{COLOURS[label]}" stroke-width="1" points="'
        + " ".join(
            f"{LEFT + span_x * t / right:.1f},{TOP + span_y * (1 - min(ms / top, 1.0)):.1f}"
            for t, ms in series
        )
        + f'"><title>{escape(label)}</title></polyline>'
        for label, series in phases_
    )
    return (
        f"{_chart_opening(title)}"
        f"{''.join(ticks)}"
        f'<text x="{WIDTH - RIGHT}" y="{HEIGHT}" text-anchor="end" font-size="11">'
        "time, s</text>"
        f'<text x="{LEFT + 8}" y="{TOP + 12}" font-size="11">round trip, ms</text>'
        f"{lines}"
        "</svg>"
    )


def _cdf_points(values: Sequence[float], top: float) -> str:
    ordered = sorted(values)
    n = len(ordered)
    span_x, span_y = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    # Each step's height ends one probe and starts the next: formatted once for both.
    heights = [f"{TOP + span_y * (1 - step / n):.1f}" for step in range(n + 1)]
    points = []
    for index, value in enumerate(ordered):
        x = f"{LEFT + span_x * min(value / top, 1.0):.1f},"
        points.append(x + heights[index])
        points.append(x + heights[index + 1])
    return " ".join(points)


def cdf_svg(series: Sequence[tuple[str, ProbeSeries]], title: str) -> str:
    top = max(max(s.rtt_ms) for _, s in series) * 1.05 or 1.0
    span_x = WIDTH - LEFT - RIGHT
    ticks = []
    for step in range(5):
        value = top * step / 4
        x = LEFT + span_x * step / 4
        ticks.append(
            f'<text x="{x:.1f}" y="{HEIGHT - 12}" text-anchor="middle" font-size="11">'
            f"{value:.3g}</text>"
        )
    lines = "".join(
        f'<polyline fill="none" stroke="{COLOURS[label]}" stroke-width="1.5" '
        f'points="{_cdf_points(s.rtt_ms, top)}"><title>{escape(label)}</title></polyline>'
        for label, s in series
    )
    legend = " ".join(
        f'<tspan fill="{COLOURS[label]}">\N{EM DASH} {escape(label)} ({len(s.rtt_ms)} '
        f"probes, {escape(s.tool)})</tspan>"
        for label, s in series
    )
    return (
        f"{_chart_opening(title)}"
        f'<text x="{LEFT - 6}" y="{TOP + 8}" text-anchor="end" font-size="11">1</text>'
        f'<text x="{LEFT - 6}" y="{HEIGHT - BOTTOM}" text-anchor="end" font-size="11">0</text>'
        f"{''.join(ticks)}"
        f'<text x="{WIDTH - RIGHT}" y="{HEIGHT}" text-anchor="end" font-size="11">'
        "round trip, ms</text>"
        f"{lines}"
        f'<text x="{LEFT + 8}" y="{TOP + 12}" font-size="11">{legend}</text>'
        "</svg>"
    )


def latency_section(outcomes: Sequence[TrialOutcome], tables: str = "") -> str:
    """The section: `tables` (the latency table's markup) and the probed trials' charts;
    "" where it has neither."""
    figures = []
    for outcome in outcomes:
        parsed = parsed_probes(outcome)
        series = phases(outcome, parsed)
        if not series:
            continue
        over_time = timeline(outcome, parsed)
        if over_time:
            title = f"{outcome.trial.key}: round trips over time"
            figures.append(
                f'<figure class="plot"><figcaption>{escape(title)}</figcaption>'
                f"{timeline_svg(over_time, title)}</figure>"
            )
        title = f"{outcome.trial.key}: round trips idle and under load"
        figures.append(
            f'<figure class="plot"><figcaption>{escape(title)}</figcaption>'
            f"{cdf_svg(series, title)}</figure>"
        )
    if not figures and not tables:
        return ""
    return (
        '<section class="card" id="latency"><h2>Latency under load</h2>'
        '<p class="lead">Each probe\'s round trip over time: idle before the load, then '
        "from a second into it (a queue shows as a step up by its delay); and the share "
        "of probes (vertical) that came back within a round trip (horizontal). A queue "
        "shifts the loaded curve to the right by its delay (docs/latency.md).</p>"
        f"{tables}{''.join(figures)}</section>"
    )
