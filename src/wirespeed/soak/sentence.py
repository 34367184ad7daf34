"""The soak's verdict in one sentence:

7 outages in 14.0 h (one every 2.0 h), 3.1-9.8 s, each after `igb … Detected Tx Unit
Hang` on eth1
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from wirespeed.soak.matching import KernelEvent, Matched

__all__ = ["describe_event", "duration_text", "sentence"]


def duration_text(seconds: float) -> str:
    if seconds >= 3600:
        return f"{seconds / 3600:.1f} h"
    if seconds >= 60:
        return f"{seconds / 60:.1f} min"
    return f"{seconds:.0f} s"


def _length(seconds: float) -> str:
    return f"{seconds:.2f}" if seconds < 1 else f"{seconds:.1f}"


def describe_event(event: KernelEvent) -> str:
    """`igb … Detected Tx Unit Hang`: the driver and the words after the last ': '."""
    words = event.message.rsplit(": ", 1)[-1].strip()
    words = words.removesuffix("(injected)").strip()
    return f"{event.driver} … {words}" if event.driver else words


def _cause_key(event: KernelEvent) -> tuple[str, str | None]:
    return describe_event(event), event.interface


def sentence(matched: Sequence[Matched], watched: float) -> str:
    """`watched`: seconds the stream ran."""
    span = duration_text(watched)
    if not matched and watched <= 0:
        # A soak that never streamed watched nothing: "no outage" would read as a clean bill.
        return "nothing watched (no probe was sent)"
    if not matched:
        return f"no outage in {span}"
    count = len(matched)
    noun = "outage" if count == 1 else "outages"
    lengths = [m.outage.duration for m in matched]
    low, high = min(lengths), max(lengths)
    text = f"{count} {noun} in {span}"
    if count > 1:
        text += f" (one every {duration_text(watched / count)})"
    text += (
        f", {_length(low)} s"
        if count == 1 or low == high
        else f", {_length(low)}\N{EN DASH}{_length(high)} s"
    )
    causes = Counter(_cause_key(m.cause) for m in matched if m.cause is not None)
    if not causes:
        return text + ", no kernel event near " + ("it" if count == 1 else "any")
    matched_count = sum(causes.values())
    if len(causes) == 1:
        (words, interface), seen = causes.most_common(1)[0]
        on = f" on {interface}" if interface else ""
        if seen == count:
            who = "after" if count == 1 else "each after"
        else:
            who = f"{seen} of {count} after"
        return f"{text}, {who} `{words}`{on}"
    listed = ", ".join(
        f"{seen} `{words}`" + (f" on {interface}" if interface else "")
        for (words, interface), seen in causes.most_common()
    )
    if matched_count == count:
        return f"{text}, each after a kernel event: {listed}"
    return f"{text}, {matched_count} of {count} after a kernel event: {listed}"
