"""A card as one Markdown table row, for the tables people keep in forum threads (the
OpenWrt forum's, wg-bench's, sbc-bench's Results.md): device, SoC, firmware, kernel,
TCP, NDR 64 B, WireGuard, AES-256-GCM, bufferbloat grade and the run's verdict
(`wirespeed card --row`, `wirespeed report --row`; docs/sharing.md)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

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


def _lowest(figures: Sequence[Figure], starts: str) -> Figure | None:
    """The lower of the figures whose label starts so (the slower direction)."""
    found = [f for f in figures if f.label.startswith(starts) and f.value is not None]
    return min(found, key=lambda f: f.value or 0.0) if found else None


def _verdict(record: RunRecord) -> str:
    return run_verdict(record).short


@dataclass(frozen=True)
class Headline:
    """One of the row's figures, and the test (and path) that measured it: what its
    comparison key is read from."""

    column: str  # of COLUMNS
    figure: Figure
    test_id: str
    path: str | None = None  # where the test ran on several paths (the tunnels')


def headlines(summary: CardSummary) -> tuple[Headline, ...]:
    """The card's figures of the row: TCP (the slower direction), NDR 64 B (the slower),
    WireGuard, AES-256-GCM and the bufferbloat grade; each only where measured."""
    throughput = _figures(summary, "throughput")
    tcp = _lowest([f for f in throughput if f.label in ("TCP up", "TCP down")], "TCP")
    grade = next((f for f in _figures(summary, "latency") if f.label == "bufferbloat grade"), None)
    found = (
        ("TCP", tcp, tcp.label.lower().replace(" ", "-") if tcp else "", None),
        ("NDR 64 B", _lowest(_figures(summary, "forwarding"), "NDR 64 B"), "fwd", None),
        ("WireGuard", _lowest(_figures(summary, "vpn"), "WireGuard"), "vpn", "WireGuard"),
        ("AES-256-GCM", _lowest(_figures(summary, "compute"), "AES-256-GCM"), "crypto", None),
        ("Bufferbloat", grade, "rrul", None),
    )
    return tuple(
        Headline(column, figure, test, path)
        for column, figure, test, path in found
        if figure is not None
    )


def board_of(summary: CardSummary) -> str:
    return _fact(summary, "board") or summary.target


def soc_of(summary: CardSummary, record: RunRecord) -> str | None:
    return _soc(summary, record)


def firmware_of(summary: CardSummary) -> str | None:
    return _fact(summary, "os")


def kernel_of(summary: CardSummary) -> str | None:
    return _fact(summary, "kernel")


def card_row(summary: CardSummary, record: RunRecord) -> str:
    figures = {h.column: h.figure.text for h in headlines(summary)}
    cells = [
        board_of(summary),
        _soc(summary, record),
        firmware_of(summary),
        kernel_of(summary),
        *(figures.get(column) for column in COLUMNS[4:9]),
        _verdict(record),
    ]
    return "| " + " | ".join(markdown_table_safe(c) if c else NONE for c in cells) + " |\n"
