"""The soak's verdict in one sentence:

7 outages in 14.0 h (one every 2.0 h), 3.1-9.8 s, each after `igb … Detected Tx Unit
Hang` on eth1

and what the device itself did, beside the outage it explains:

1 outage in 1.0 min, 40.0 s, no kernel event near it; the device dut did not answer
from 06:30:10 UTC for 40 s (beside the outage)
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from wirespeed.soak.durations import duration_text
from wirespeed.soak.matching import DEFAULT_WINDOW, KernelEvent, Matched

if TYPE_CHECKING:
    from wirespeed.soak.device import DeviceEvent

__all__ = ["describe_event", "duration_text", "sentence"]


def _length(seconds: float) -> str:
    return f"{seconds:.2f}" if seconds < 1 else f"{seconds:.1f}"


def describe_event(event: KernelEvent) -> str:
    """`igb … Detected Tx Unit Hang`: the driver and the words after the last ': '."""
    words = event.message.rsplit(": ", 1)[-1].strip()
    words = words.removesuffix("(injected)").strip()
    return f"{event.driver} … {words}" if event.driver else words


def _cause_key(event: KernelEvent) -> tuple[str, str | None]:
    return describe_event(event), event.interface


# Device events told one by one; more are counted.
_DEVICE_TOLD = 3


def _device_clause(device: Sequence[DeviceEvent], matched: Sequence[Matched], window: float) -> str:
    if not device:
        return ""
    if len(device) > _DEVICE_TOLD:
        silent = [e for e in device if e.kind == "no-answer"]
        restarts = len(device) - len(silent)
        parts = []
        if silent:
            longest = max(e.duration for e in silent)
            parts.append(
                f"the device did not answer {len(silent)} times (at most {duration_text(longest)})"
            )
        if restarts:
            parts.append(f"it restarted {restarts} times")
        return "; " + ", ".join(parts)
    told = []
    for event in device:
        when = time.strftime("%H:%M:%S UTC", time.gmtime(event.at))
        if event.kind == "restart":
            text = f"the device {event.host} restarted" + (
                f" ({event.detail})" if event.detail else ""
            )
        else:
            text = (
                f"the device {event.host} did not answer from {when} for "
                f"{duration_text(event.duration)}"
            )
        beside = [
            m for m in matched
            if m.outage.start - window <= event.end and event.at <= m.outage.end + window
        ]  # fmt: skip
        if beside:
            text += (
                " (beside the outage)" if len(beside) == 1 else f" (beside {len(beside)} outages)"
            )
        told.append(text)
    return "; " + "; ".join(told)


def sentence(
    matched: Sequence[Matched],
    watched: float,
    device: Sequence[DeviceEvent] = (),
    window: float = DEFAULT_WINDOW,
) -> str:
    """`watched`: seconds the stream ran; `device`: the DUT's silences and restarts."""
    return _outages(matched, watched) + _device_clause(device, matched, window)


def _outages(matched: Sequence[Matched], watched: float) -> str:
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
