"""The card's parts read across: each part's findings with what the others' figures say
of it (card/across.py's words, put on the parts the summary built).
"""

from __future__ import annotations

import dataclasses

from wirespeed.card.across import (
    card_lab,
    compute_words,
    elsewhere,
    tcp_against_forwarding,
    tunnels_against_budget,
)
from wirespeed.card.figures import PartSummary
from wirespeed.card.parts import COMPUTE, FORWARDING, LATENCY, THROUGHPUT, VPN
from wirespeed.card.report_rows import line_ceiling, row_of
from wirespeed.report.model import Report

__all__ = ["read_across"]


def read_across(parts: list[PartSummary], report: Report, routed: str) -> list[PartSummary]:
    """Each part's findings with what the others' figures say of it (card/across.py)."""
    lab = card_lab(report.info.plan_text)
    mtu = lab.link.mtu if lab is not None else 1500
    by_key = {p.part.key: p for p in parts}
    budget = _forwarding_budget(by_key.get(FORWARDING.key))
    if budget is None and lab is not None and lab.limit is not None:
        budget = float(lab.limit.pps) if lab.limit.pps is not None else None
    more: dict[str, tuple[str, ...]] = {}
    throughput = by_key.get(THROUGHPUT.key)
    if throughput is not None and throughput.present:
        tcp = [f.value for f in throughput.figures if f.label in ("TCP up", "TCP down") and f.value]
        line = line_ceiling(row_of(report, "tcp-up") or row_of(report, "tcp-down"))
        said = tcp_against_forwarding(max(tcp) if tcp else None, budget, mtu, line)
        more[THROUGHPUT.key] = (said,) if said else ()
    vpn = by_key.get(VPN.key)
    if vpn is not None and vpn.present:
        tunnels = [(f.label, f.value) for f in vpn.figures if f.value is not None]
        more[VPN.key] = tunnels_against_budget(tunnels, budget, mtu) + elsewhere(
            _tunnel_labs(report), _lab_of_path(report, routed)
        )
    latency = by_key.get(LATENCY.key)
    words = lab.queue_words() if lab is not None else None
    compute = by_key.get(COMPUTE.key)
    if compute is not None and compute.present and compute_words(lab):
        more[COMPUTE.key] = (compute_words(lab),)
    short = lab.queue_short() if lab is not None else None
    headlines = {}
    if latency is not None and latency.present and words and short:
        more[LATENCY.key] = (f"the queue under load: {words}",)
        if latency.headline.endswith(")"):
            headlines[LATENCY.key] = f"{latency.headline[:-1]}, {short})"
    return [
        dataclasses.replace(
            p,
            headline=headlines.get(p.part.key, p.headline),
            findings=more.get(p.part.key, ()) + p.findings,
        )
        for p in parts
    ]


def _forwarding_budget(part: PartSummary | None) -> float | None:
    """The most the device forwarded with no loss: the smallest frames' best NDR (one
    direction's search gets the whole budget, as a CPU serves whichever way is busy)."""
    if part is None or not part.present:
        return None
    ndr = [
        (int(f.label.split()[1]), f.value)
        for f in part.figures
        if f.label.startswith("NDR ") and f.value is not None
    ]
    if not ndr:
        return None
    smallest = min(frame for frame, _ in ndr)
    return max(value for frame, value in ndr if frame == smallest)


def _lab_of_path(report: Report, name: str) -> str:
    for detail in report.trials:
        path = detail.outcome.trial.path
        if path.name == name:
            limit = f" limited to {path.limit.label}" if path.limit is not None else ""
            return f"{path.topology.value}{limit}"
    return ""


def _tunnel_labs(report: Report) -> dict[str, str]:
    """Each tunnel path of the card, and the lab DUT it ran on ("nat limited to 20kpps")."""
    found = {}
    for detail in report.trials:
        trial = detail.outcome.trial
        if trial.test.id in VPN.tests and trial.path.tunnel is not None:
            found[trial.path.name] = _lab_of_path(report, trial.path.name)
    return found
