"""The HTML report's latency section: per probed trial, the distribution (CDF) of its
probes' round trips idle and under load, drawn as inline SVG (no script, no request).

The probes' raw outputs (side `probe`, the idle phase first) are parsed again here: the
report keeps no series of its own. A run loaded without its outputs has no section.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from wirespeed.model import RawOutput, Side, TrialOutcome
from wirespeed.tools import irtt, ping
from wirespeed.tools.probing import ProbeSeries

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


def phases(outcome: TrialOutcome) -> list[tuple[str, ProbeSeries]]:
    probes = [raw for raw in outcome.raw if raw.side is Side.PROBE and raw.text]
    found = []
    for label, raw in zip(("idle", "loaded"), probes, strict=False):
        series = probe_series(raw)
        if series is not None and series.rtt_ms:
            found.append((label, series))
    return found


def _cdf_points(values: Sequence[float], top: float) -> str:
    ordered = sorted(values)
    n = len(ordered)
    span_x, span_y = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    points = []
    for index, value in enumerate(ordered):
        x = LEFT + span_x * min(value / top, 1.0)
        points.append(f"{x:.1f},{TOP + span_y * (1 - index / n):.1f}")
        points.append(f"{x:.1f},{TOP + span_y * (1 - (index + 1) / n):.1f}")
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
        f'<svg viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" role="img" '
        f'aria-label="{escape(title)}">'
        f'<line x1="{LEFT}" y1="{HEIGHT - BOTTOM}" x2="{WIDTH - RIGHT}" y2="{HEIGHT - BOTTOM}" '
        'stroke="#999"/>'
        f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{HEIGHT - BOTTOM}" stroke="#999"/>'
        f'<text x="{LEFT - 6}" y="{TOP + 8}" text-anchor="end" font-size="11">1</text>'
        f'<text x="{LEFT - 6}" y="{HEIGHT - BOTTOM}" text-anchor="end" font-size="11">0</text>'
        f"{''.join(ticks)}"
        f'<text x="{WIDTH - RIGHT}" y="{HEIGHT}" text-anchor="end" font-size="11">'
        "round trip, ms</text>"
        f"{lines}"
        f'<text x="{LEFT + 8}" y="{TOP + 12}" font-size="11">{legend}</text>'
        "</svg>"
    )


def latency_section(outcomes: Sequence[TrialOutcome]) -> str:
    """The section, or "" where no trial has probes' outputs."""
    figures = []
    for outcome in outcomes:
        series = phases(outcome)
        if not series:
            continue
        title = f"{outcome.trial.key}: round trips idle and under load"
        figures.append(
            f'<figure class="plot"><figcaption>{escape(title)}</figcaption>'
            f"{cdf_svg(series, title)}</figure>"
        )
    if not figures:
        return ""
    return (
        '<section class="card" id="latency"><h2>Latency under load</h2>'
        '<p class="lead">The share of probes (vertical) that came back within a round '
        "trip (horizontal): idle before the load, and while it ran. A queue shifts the "
        "loaded curve to the right by its delay (docs/latency.md).</p>"
        f"{''.join(figures)}</section>"
    )
