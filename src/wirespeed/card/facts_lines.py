"""What the device is, in the few lines a card shows: `wirespeed facts` of its DUT, read
before the run and kept in the card plan's `x-card:` (so the one stored run has them)."""

from __future__ import annotations

from wirespeed.facts import render_text
from wirespeed.facts.model import Facts

# Facts' own lines on interrupts and RPS belong to `wirespeed facts`; a card keeps each
# NIC's one line.
_DETAIL_INDENT = " " * 13


def card_lines(facts: Facts, *, nics: bool) -> tuple[str, ...]:
    """The facts' lines without the heading, each stripped; the NICs (one line each)
    only with `nics` (a lab DUT's are veth ends, not the machine's ports)."""
    lines = render_text(facts).splitlines()[1:]
    kept: list[str] = []
    in_network = False
    for line in lines:
        if line.strip() == "network":
            in_network = True
            if not nics:
                break
            continue
        if in_network and line.startswith(_DETAIL_INDENT):
            continue
        kept.append(" ".join(line.split()))
    return tuple(kept)
