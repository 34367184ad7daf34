"""The card's summary as data: each part's figures, its headline and findings, and the
card around them; and how a rate is written on it ("941.2 Mbit/s", "1.10 GB/s").

Below the summary (card/summary.py) that builds it, the formats that render it and the
`--tuned` pairing (card/tuned.py) that adds each figure's tuned twin.
"""

from __future__ import annotations

from dataclasses import dataclass

from wirespeed.card.parts import Part

__all__ = ["CardSummary", "Figure", "PartSummary", "bytes_text", "rate_text"]


@dataclass(frozen=True)
class Figure:
    """One figure of a part: its label, value in its unit, and the words that qualify it."""

    label: str  # "TCP up", "NDR 64 B in", "AES-256-GCM 8 KB"
    value: float | None  # in `unit`; None: not measured
    unit: str  # "bit/s", "pps", "ms", "B/s", "MIPS", "°C"
    text: str  # "941.2 Mbit/s"
    ceiling: str = ""  # "99.9 % of 941.5 Mbit/s"
    spread: str = ""  # "CV 0.3 % over 3"
    # Under --tuned: the same figure in the tuned variant, and its change against this
    # one as `compare` says it ("+4.1 %*"); "" when there is none.
    tuned: str = ""
    change: str = ""
    tuned_value: float | None = None
    # Above its physical ceiling: never "line rate", never a budget; its ceiling text
    # says so, as the report's note does.
    suspect: bool = False


@dataclass(frozen=True)
class PartSummary:
    part: Part
    headline: str  # the part's words in the card's sentence; "" when it has none
    figures: tuple[Figure, ...] = ()
    findings: tuple[str, ...] = ()  # what the part's trials found, each once
    skipped: str = ""  # why the part was left out
    seconds: float | None = None  # how long its trials took together
    unfinished: str = ""  # the trials its card did not reach (card/unfinished.py)

    @property
    def present(self) -> bool:
        return bool(self.figures) and not self.skipped


@dataclass(frozen=True)
class CardSummary:
    run_id: int
    title: str
    target: str
    profile: str
    what: tuple[str, ...]  # what the device is: OS, kernel, machine
    parts: tuple[PartSummary, ...]
    good_for: tuple[str, ...]
    # --tuned: what was changed (or why nothing was), in words; () without --tuned.
    tuned: tuple[str, ...] = ()
    unfinished: str = ""  # "interrupted after 1 of 9 trials: ...": "" for a whole card

    @property
    def sentence(self) -> str:
        return "; ".join(p.headline for p in self.parts if p.headline)

    def part(self, key: str) -> PartSummary:
        return next(p for p in self.parts if p.part.key == key)


def _scaled(value: float, units: tuple[str, str, str]) -> str:
    """The value in giga, mega or kilo of its unit, as people read rates."""
    giga, mega, kilo = units
    if value >= 10**9:
        return f"{value / 1e9:.2f} {giga}"
    if value >= 10**6:
        return f"{value / 1e6:.1f} {mega}"
    return f"{value / 1e3:.1f} {kilo}"


def rate_text(bps: float) -> str:
    return _scaled(bps, ("Gbit/s", "Mbit/s", "kbit/s"))


def bytes_text(bytes_per_s: float) -> str:
    return _scaled(bytes_per_s, ("GB/s", "MB/s", "kB/s"))
