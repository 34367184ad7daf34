"""The card's summary, read from a card run's report: per part its figures in words and
numbers, each with its ceiling and spread where it has them, and one sentence at the top
("routes NAT at line rate (941 Mbit/s); 64 B NDR 14,998 pps; bufferbloat grade C (+38
ms); WireGuard 480 Mbit/s; AES-256-GCM 1.1 GB/s; never throttled, 52 °C max").

Pure: the report in, frozen data out; every format renders it (card/render.py).
"""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Iterable, Sequence

from wirespeed.analysis.identity import identity_line
from wirespeed.analysis.latency import grade
from wirespeed.analysis.stats import Summary
from wirespeed.card.figures import CardSummary, Figure, PartSummary, bytes_text, rate_text
from wirespeed.card.parts import (
    COMPUTE,
    DEVICE,
    FACTS,
    FORWARDING,
    LATENCY,
    PARTS,
    THROUGHPUT,
    VPN,
    Part,
)
from wirespeed.card.plan_text import card_marker
from wirespeed.card.read_across import read_across
from wirespeed.card.report_rows import believable, line_ceiling, row_of
from wirespeed.card.tuned import tuned_pairs, tuned_words, variant_report
from wirespeed.model import Finding, FindingKind, Topology, TrialOutcome
from wirespeed.report.budgets import Budget, parse_budget
from wirespeed.report.model import ABOVE_CEILING_HINT, Report, cv_text
from wirespeed.report.stored_summary import summary_fields

__all__ = [
    "LINE_RATE_SHARE",
    "NETWORK_PARTS",
    "SUSPECT",
    "CardSummary",
    "Figure",
    "PartSummary",
    "bytes_text",
    "card_summary",
    "is_card",
    "rate_text",
]

# The parts `--tuned` runs again: the ones whose packets cross the tuned NICs.
NETWORK_PARTS = (THROUGHPUT, FORWARDING, LATENCY, VPN)
LINE_RATE_SHARE = 0.95  # at or above this share of its ceiling a figure is "line rate"
SUSPECT = "above the physical ceiling, suspect"  # a figure report/model.py notes so
# What a goodput is good for (docs/budgets.md): streams, I/Q samples, users at a rate.
GOOD_FOR = ("video:6M", "video:25M", "sdr:sc16")


def is_card(report: Report) -> bool:
    return card_marker(report.info.plan_text) is not None


def card_summary(report: Report) -> CardSummary:
    """The card; under --tuned, each part's figures are the stock variant's, the network
    parts' each with its tuned twin and the change (card/tuned.py)."""
    from wirespeed.card.unfinished import unfinished

    gaps = unfinished(report)
    marker = card_marker(report.info.plan_text) or {}
    skipped = {str(k): str(v) for k, v in (marker.get("skipped") or {}).items()}
    routed = str(marker.get("routed", ""))
    topology = _topology_of(report, routed)
    tuned_marker = marker.get("tuned")
    pairs = tuned_pairs(report) if isinstance(tuned_marker, dict) else None
    stock = variant_report(report, pairs.stock) if pairs is not None else report
    built: list[PartSummary] = []
    for part in PARTS:
        outcomes = [t.outcome for t in report.trials if t.outcome.trial.test.id in part.tests]
        seconds = sum(o.finished_at - o.started_at for o in outcomes) if outcomes else None
        reason = _skipped_part(part, skipped)
        if reason:
            built.append(PartSummary(part, "", skipped=reason, seconds=seconds))
            continue
        # The device across the whole card; every other part as measured stock.
        source = report if part is DEVICE else stock
        mine = [t.outcome for t in source.trials if t.outcome.trial.test.id in part.tests]
        summary = _PART_BUILDERS[part.key](source, mine, topology)
        if pairs is not None and part in NETWORK_PARTS:
            twin = _PART_BUILDERS[part.key](
                pairs.tuned_report,
                [o for o in pairs.tuned_outcomes if o.trial.test.id in part.tests],
                topology,
            )
            summary = dataclasses.replace(summary, figures=pairs.paired(summary, twin))
        notes = tuple(reason for key, reason in skipped.items() if _within(part, key))
        built.append(
            dataclasses.replace(
                summary,
                findings=summary.findings + notes,
                seconds=seconds,
                unfinished=gaps.parts.get(part.key, ""),
            )
        )
    built = read_across(built, stock, routed)
    return CardSummary(
        run_id=report.run_id,
        title=report.title,
        target=str(marker.get("target", "")),
        profile=str(marker.get("profile", "")),
        what=_what(report),
        parts=tuple(built),
        good_for=_good_for(stock, routed),
        tuned=tuned_words(tuned_marker, pairs, tuple(built))
        if isinstance(tuned_marker, dict)
        else (),
        unfinished=gaps.line,
    )


def _skipped_part(part: Part, skipped: dict[str, str]) -> str:
    """Why the part was left out: its own reason, or each of its tests' (tunnels') when
    every one of them was; "" when it ran."""
    if part.key in skipped:
        return skipped[part.key]
    own = [key for key in skipped if _within(part, key)]
    whole = set(COMPUTE.tests) if part is COMPUTE else {"WireGuard", "OpenVPN"}
    if part in (COMPUTE, VPN) and set(own) == whole:
        return "; ".join(skipped[key] for key in own)
    return ""


def _within(part: Part, key: str) -> bool:
    """A skipped test or tunnel that belongs to the part (its own key aside)."""
    if part is COMPUTE:
        return key in COMPUTE.tests
    if part is VPN:
        return key in ("WireGuard", "OpenVPN")
    return False


def _topology_of(report: Report, path: str) -> Topology | None:
    for detail in report.trials:
        if detail.outcome.trial.path.name == path:
            return detail.outcome.trial.path.topology
    return None


# -- what it is --------------------------------------------------------------------------


def _what(report: Report) -> tuple[str, ...]:
    lines = []
    hosts = report.info.hosts
    duts = [h for h in hosts if h.role and "dut" in h.role] or list(hosts)
    for host in duts:
        said = [part for part in (host.machine, host.os, host.kernel) if part]
        tools = ", ".join(f"{k} {v}" for k, v in sorted(host.tools.items()))
        line = f"{host.name}: " + ", ".join(said) if said else host.name
        lines.append(f"{line} ({tools})" if tools else line)
        # What the run read of it with busybox (facts/identity.py), where it did.
        facts = (report.info.provenance.get("hosts") or {}).get(host.name)
        identity = facts.get("identity") if isinstance(facts, dict) else None
        configured = identity_line(identity) if isinstance(identity, dict) else None
        if configured:
            lines.append(f"{host.name}: {configured}")
    return tuple(lines)


# -- numbers in words ----------------------------------------------------------------------


def _spread(summary: Summary | None) -> str:
    if summary is None or summary.n < 2 or summary.cv is None:
        return ""
    return f"{cv_text(summary.cv)} over {summary.n}"


def _unique(texts: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(t for t in texts if t))


def _finding_words(findings: Iterable[Finding]) -> tuple[str, ...]:
    """The findings worth a card's line: what bounded a figure, not the lab's own load."""
    kept = (
        FindingKind.LINE_RATE,
        FindingKind.CPU_BOUND,
        FindingKind.IRQS_ON_ONE_CORE,
        FindingKind.THROTTLED,
        FindingKind.UNDER_VOLTAGE,
        FindingKind.DROPS,
        FindingKind.GENERATOR_LIMITED,
        FindingKind.SEARCH_UNFINISHED,
        FindingKind.LAB_LIMITED,
        FindingKind.CLOCK_BELOW_ADVERTISED,
        FindingKind.KERNEL_EVENT,
    )
    return _unique(f"{f.kind.value}: {f.message}" for f in findings if f.kind in kept)


def _findings_of(outcomes: Sequence[TrialOutcome]) -> tuple[str, ...]:
    return _finding_words(f for o in outcomes for f in o.findings)


# -- the parts -----------------------------------------------------------------------------


def _flow_figures(report: Report, test_id: str, label: str) -> list[Figure]:
    """A traffic test's flows on every column it ran on, each with its ceiling."""
    row = row_of(report, test_id)
    if row is None:
        return []
    figures = []
    for column, cell in zip(report.columns, row.cells, strict=True):
        if cell is None:
            continue
        for flow in cell.flows:
            value = flow.goodput_bps
            named = label if len(cell.flows) == 1 else f"{label} ({flow.flow.value})"
            if len(report.columns) > 1 and test_id == "vpn":
                named = column.path
            ceiling = ""
            if value is not None and flow.ceiling is not None:
                share = value / flow.ceiling.bits_per_second * 100
                ceiling = f"{share:.1f} % of {rate_text(flow.ceiling.bits_per_second)}"
                if flow.above_ceiling:
                    ceiling += f": {SUSPECT}"
            figures.append(
                Figure(
                    named,
                    value,
                    "bit/s",
                    rate_text(value) if value is not None else "not measured",
                    ceiling,
                    _spread(flow.summary),
                    suspect=flow.above_ceiling,
                )
            )
    return figures


def _throughput(
    report: Report, outcomes: list[TrialOutcome], topology: Topology | None
) -> PartSummary:
    figures: list[Figure] = []
    for test_id, label in (
        ("tcp-up", "TCP up"),
        ("tcp-down", "TCP down"),
        ("tcp-both", "TCP both ways"),
        ("udp", "UDP"),
    ):
        figures += _flow_figures(report, test_id, label)
    tcp = [f for f in figures if f.label in ("TCP up", "TCP down") and f.value is not None]
    headline = ""
    if tcp:
        best = max(tcp, key=lambda f: f.value or 0.0)
        row = row_of(report, "tcp-up") or row_of(report, "tcp-down")
        ceiling = line_ceiling(row)
        verb = {
            Topology.NAT: "routes NAT",
            Topology.ROUTER: "routes",
            Topology.BRIDGE: "bridges",
            Topology.ENDPOINT: "takes TCP",
        }.get(topology or Topology.ROUTER, "moves TCP")
        assert best.value is not None
        if best.suspect and ceiling is not None:
            # What the run's report says of it, not "line rate".
            headline = (
                f"{verb} at {rate_text(best.value)} ({best.value / ceiling * 100:.0f} % of "
                f"{rate_text(ceiling)}), {ABOVE_CEILING_HINT}"
            )
        elif ceiling is not None and best.value >= ceiling * LINE_RATE_SHARE:
            headline = f"{verb} at line rate ({rate_text(best.value)})"
        elif ceiling is not None:
            headline = (
                f"{verb} at {rate_text(best.value)} "
                f"({best.value / ceiling * 100:.0f} % of line rate)"
            )
        else:
            headline = f"{verb} at {rate_text(best.value)}"
    return PartSummary(THROUGHPUT, headline, tuple(figures), _findings_of(outcomes))


def _forwarding(report: Report, outcomes: list[TrialOutcome], _: Topology | None) -> PartSummary:
    table = next((t for t in report.forwarding if t.test_id in FORWARDING.tests), None)
    if table is None:
        return PartSummary(FORWARDING, "", (), _findings_of(outcomes))
    goal = table.goals[0] if table.goals else "NDR"
    figures: list[Figure] = []
    smallest: list[Figure] = []
    for row in table.rows:
        for direction, cell in zip(table.directions, row.cells, strict=True):
            if cell is None:
                continue
            found = dict(cell.figures)
            for name in table.goals:
                measured = found.get(name)
                if measured is None or measured.summary is None:
                    continue
                value = measured.summary.median
                share = found.get(f"{name} of ceiling")
                ceiling = ""
                if share is not None and share.summary is not None:
                    ceiling = f"{share.summary.median:.1f} % of the frame-rate ceiling"
                figure = Figure(
                    f"{name} {row.frame} B {direction}",
                    value,
                    "pps",
                    f"{value:,.0f} pps",
                    ceiling,
                    _spread(measured.summary),
                )
                figures.append(figure)
                if name == goal and row.frame == table.rows[0].frame:
                    smallest.append(figure)
    headline = ""
    if smallest:
        frame = table.rows[0].frame
        said = ", ".join(
            f"{f.value:,.0f} pps {f.label.rsplit(' ', 1)[-1]}"
            for f in smallest
            if f.value is not None
        )
        headline = f"{frame} B {goal} {said}"
        seen = [f for o in outcomes for f in o.findings]
        bound = [f for f in seen if f.kind is FindingKind.CPU_BOUND]
        # A lab's DUT shares this machine's cores with the generator: a busy core there
        # is the lab's limit (its lab-limited finding), not the device's.
        if bound and not any(f.kind is FindingKind.LAB_LIMITED for f in seen):
            headline += f" (CPU-bound: {bound[0].message.split(';')[0]})"
    return PartSummary(FORWARDING, headline, tuple(figures), _findings_of(outcomes))


def _measured(
    report: Report, test_id: str
) -> list[tuple[str, tuple[tuple[str, str], ...], str, Summary]]:
    """A test's benchmark-like figures: (name, labels, unit, summary) of each row's first
    measured place."""
    found = []
    for row in report.measured:
        if row.test_id != test_id:
            continue
        for cell in row.cells:
            if cell is not None and cell.summary is not None:
                found.append((row.name, row.labels, row.unit, cell.summary))
    return found


def _latency(report: Report, outcomes: list[TrialOutcome], _: Topology | None) -> PartSummary:
    figures: list[Figure] = []
    increase: float | None = None
    for name, labels, _unit, summary in _measured(report, "rrul"):
        label_map = dict(labels)
        if name == "latency increase":
            way = label_map.get("way", "round trip")
            figures.append(
                Figure(
                    f"latency increase ({way})",
                    summary.median,
                    "ms",
                    f"{summary.median:+.1f} ms",
                    spread=_spread(summary),
                )
            )
            if way == "round trip":
                increase = summary.median
        elif name == "rtt" and label_map.get("statistic") == "p50":
            load = label_map.get("load", "")
            figures.append(
                Figure(f"rtt p50 {load}", summary.median, "ms", f"{summary.median:.2f} ms")
            )
    goodput = _flow_figures(report, "rrul", "RRUL goodput")
    figures += goodput
    headline = ""
    if increase is not None:
        letter = grade(increase)
        figures.insert(0, Figure("bufferbloat grade", increase, "grade", letter))
        shown = f"{increase:+.0f}" if abs(increase) >= 10 else f"{increase:+.1f}"
        headline = f"bufferbloat grade {letter} ({shown} ms)"
    return PartSummary(LATENCY, headline, tuple(figures), _findings_of(outcomes))


def _vpn(report: Report, outcomes: list[TrialOutcome], _: Topology | None) -> PartSummary:
    figures = _flow_figures(report, "vpn", "VPN")
    said = [
        f"{f.label} {f.text}" + (f" ({SUSPECT})" if f.suspect else "")
        for f in figures
        if f.value is not None
    ]
    return PartSummary(VPN, "; ".join(said), tuple(figures), _findings_of(outcomes))


# The ciphers the card's sentence names (the others are in its section).
HEADLINE_CIPHERS = ("AES-256-GCM", "CHACHA20-POLY1305")


def _compute(report: Report, outcomes: list[TrialOutcome], _: Topology | None) -> PartSummary:
    figures: list[Figure] = []
    best: dict[str, Figure] = {}
    for test_id in COMPUTE.tests:
        for name, labels, unit, summary in _measured(report, test_id):
            label_map = dict(labels)
            if test_id == "7z":
                if name != "total":
                    continue
                label = f"7-zip, {label_map.get('threads', '?')}"
                text = f"{summary.median:,.0f} MIPS"
            else:
                label = name
                details = [label_map.get("block", ""), label_map.get("cluster", "")]
                label += " " + ", ".join(d for d in details if d)
                text = bytes_text(summary.median)
            figure = Figure(label.strip(), summary.median, unit, text, spread=_spread(summary))
            figures.append(figure)
            key = name if test_id != "7z" else f"7z {label_map.get('threads')}"
            if key not in best or summary.median > (best[key].value or 0.0):
                best[key] = figure
    said = [f"{name} {best[name].text}" for name in HEADLINE_CIPHERS if name in best]
    sevenzip = [f for key, f in best.items() if key.startswith("7z ")]
    if sevenzip:
        top = max(sevenzip, key=lambda f: f.value or 0.0)
        said.append(f"7-zip {top.text}")
    return PartSummary(COMPUTE, "; ".join(said), tuple(figures), _findings_of(outcomes))


def _device(report: Report, _outcomes: list[TrialOutcome], __: Topology | None) -> PartSummary:
    """The DUT across the whole card: its hottest, its clocks, whether it throttled."""
    outcomes = [t.outcome for t in report.trials]
    temperatures: list[float] = []
    clocks: dict[str, tuple[int, int, int | None]] = {}
    throttled: list[str] = []
    for outcome in outcomes:
        for monitor in outcome.monitors:
            if monitor.role != "dut" or not monitor.summary:
                continue
            fields = summary_fields(monitor.summary)
            if fields.get("temperature_max_c") is not None:
                temperatures.append(float(fields["temperature_max_c"]))
            for clock in fields.get("clocks") or ():
                low, high, top = clocks.get(clock["policy"], (clock["min_khz"], 0, None))
                clocks[clock["policy"]] = (
                    min(low, clock["min_khz"]),
                    max(high, clock["max_khz"]),
                    clock.get("hardware_max_khz") or top,
                )
            throttled += [str(t) for t in fields.get("throttled") or ()]
    throttle_findings = [
        f
        for o in outcomes
        for f in o.findings
        if f.kind in (FindingKind.THROTTLED, FindingKind.UNDER_VOLTAGE)
    ]
    figures: list[Figure] = []
    if temperatures:
        hottest = max(temperatures)
        figures.append(Figure("temperature, max", hottest, "°C", f"{hottest:.0f} °C"))
    for policy, (low, high, top) in sorted(clocks.items()):
        ceiling = f"its maximum {top / 1000:.0f} MHz" if top else ""
        figures.append(
            Figure(
                f"clock {policy}",
                high / 1000,
                "MHz",
                f"{low / 1000:.0f}-{high / 1000:.0f} MHz",
                ceiling,
            )
        )
    sampled = sum(1 for o in outcomes if any(m.role == "dut" and m.summary for m in o.monitors))
    figures.append(Figure("trials sampled", float(sampled), "", f"{sampled} of {len(outcomes)}"))
    said = "throttled" if throttle_findings or throttled else "never throttled"
    if temperatures:
        said += f", {max(temperatures):.0f} °C max"
    elif sampled:
        said += ", no temperature sensor"
    else:
        said = "not sampled"
    findings = _finding_words(throttle_findings) + _unique(throttled)
    return PartSummary(DEVICE, said, tuple(figures), findings)


def _facts(report: Report, _outcomes: list[TrialOutcome], __: Topology | None) -> PartSummary:
    marker = card_marker(report.info.plan_text) or {}
    lines = [str(line) for line in marker.get("facts") or ()]
    figures = []
    for line in lines:
        label, _, text = line.partition(" ")
        figures.append(Figure(label, None, "", text.strip() or label))
    figures += [Figure("host", None, "", line) for line in _what(report)]
    return PartSummary(FACTS, "", tuple(figures))


_PART_BUILDERS = {
    FACTS.key: _facts,
    THROUGHPUT.key: _throughput,
    FORWARDING.key: _forwarding,
    LATENCY.key: _latency,
    VPN.key: _vpn,
    COMPUTE.key: _compute,
    DEVICE.key: _device,
}


# -- good for ----------------------------------------------------------------------------------


def _good_for(report: Report, routed: str) -> tuple[str, ...]:
    """The slower way of TCP through the device, and of each tunnel, said as budgets."""
    said = []
    budgets: list[Budget] = [parse_budget(text) for text in GOOD_FOR]
    ways = []
    for test_id in ("tcp-up", "tcp-down"):
        row = row_of(report, test_id)
        if row is None:
            continue
        for column, cell in zip(report.columns, row.cells, strict=True):
            if cell is not None and column.path == routed:
                ways += believable(cell.flows)
    if ways:
        slower = min(ways)
        texts = ", ".join(b.text(slower) for b in budgets)
        said.append(f"through the device ({rate_text(slower)}, the slower way): {texts}")
    row = row_of(report, "vpn")
    if row is not None:
        for column, cell in zip(report.columns, row.cells, strict=True):
            values = [v for v in believable(cell.flows) if v] if cell else []
            if values:
                value = statistics.median(values)
                video = budgets[0]
                said.append(f"through {column.path} ({rate_text(value)}): {video.text(value)}")
    return tuple(said)
