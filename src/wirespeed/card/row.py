"""A card as one Markdown table row, for the tables people keep in forum threads (the
OpenWrt forum's, wg-bench's, sbc-bench's Results.md): device, SoC, firmware, kernel,
TCP, NDR 64 B, WireGuard, AES-256-GCM, bufferbloat grade and the run's verdict
(`wirespeed card --row`, `wirespeed report --row`; docs/sharing.md)."""

from __future__ import annotations

from collections.abc import Sequence

from wirespeed.analysis.validity import run_verdict
from wirespeed.card.summary import CardSummary, Figure
from wirespeed.report.text import markdown_table_safe
from wirespeed.store.records import RunRecord

COLUMNS = (
    "Device",
    "SoC",
    "Firmware",
    "Kernel",
    "TCP",
    "NDR 64 B",
    "WireGuard",
    "AES-256-GCM",
    "Bufferbloat",
    "Verdict",
)
_ALIGN = ("---", "---", "---", "---", "--:", "--:", "--:", "--:", ":-:", "---")
NONE = "\N{EN DASH}"


def row_header() -> str:
    return "| " + " | ".join(COLUMNS) + " |\n|" + "|".join(_ALIGN) + "|\n"


def _figures(summary: CardSummary, key: str) -> Sequence[Figure]:
    return next((p.figures for p in summary.parts if p.part.key == key and p.present), ())


def _fact(summary: CardSummary, label: str) -> str | None:
    found = next((f.text for f in _figures(summary, "facts") if f.label == label), None)
    return None if found in (None, "unknown") else found


def _dut_identity(record: RunRecord) -> dict[str, object]:
    """What the run read of its DUT with busybox (facts/identity.py); {} without."""
    for facts in (record.info.provenance.get("hosts") or {}).values():
        if isinstance(facts, dict) and "dut" in str(facts.get("role") or ""):
            identity = facts.get("identity")
            return identity if isinstance(identity, dict) else {}
    return {}


def _soc(summary: CardSummary, record: RunRecord) -> str | None:
    said = _dut_identity(record).get("soc") or _fact(summary, "soc")
    if said:
        return str(said)
    # Without a SoC's name: its cores, as `facts` names each cluster.
    cores = [
        f.text.split(" capacity")[0]
        for f in _figures(summary, "facts")
        if f.label.startswith("cpu") and f.label != "cpus"
    ]
    return " + ".join(dict.fromkeys(cores)) or None


def _lowest(figures: Sequence[Figure], starts: str) -> str | None:
    """The lower of the figures whose label starts so (the slower direction)."""
    found = [f for f in figures if f.label.startswith(starts) and f.value is not None]
    return min(found, key=lambda f: f.value or 0.0).text if found else None


def _verdict(record: RunRecord) -> str:
    return run_verdict(record).short


def card_row(summary: CardSummary, record: RunRecord) -> str:
    throughput = _figures(summary, "throughput")
    tcp = [f for f in throughput if f.label in ("TCP up", "TCP down")]
    cells = [
        _fact(summary, "board") or summary.target,
        _soc(summary, record),
        _fact(summary, "os"),
        _fact(summary, "kernel"),
        _lowest(tcp, "TCP"),
        _lowest(_figures(summary, "forwarding"), "NDR 64 B"),
        _lowest(_figures(summary, "vpn"), "WireGuard"),
        _lowest(_figures(summary, "compute"), "AES-256-GCM"),
        next(
            (f.text for f in _figures(summary, "latency") if f.label == "bufferbloat grade"), None
        ),
        _verdict(record),
    ]
    return "| " + " | ".join(markdown_table_safe(c) if c else NONE for c in cells) + " |\n"
