"""A finished search in one line, after the trial's name on the terminal: the forwarding
kind's `summary` hook (kinds/forwarding.py, cli/progress.py)."""

from __future__ import annotations

from collections.abc import Sequence

from wirespeed.model import Measurement


def search_summary(measurements: Sequence[Measurement]) -> str:
    """The first goal's packets/s per frame size and direction, as a search found them:
    'NDR 64 B up 14,998, 1518 B up 14,998 pps'."""
    goal = next((m.name for m in measurements if m.unit == "pps"), None)
    if goal is None:
        return "no throughput found"
    cells = [
        " ".join(value for _, value in m.labels) + f" {m.value:,.0f}"
        for m in measurements
        if m.name == goal
    ]
    return f"{goal} " + ", ".join(cells) + " pps"
