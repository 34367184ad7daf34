"""A benchmark option listing how many of something to run in turn (7-Zip's threads,
UnixBench's copies): each a number or "all", the host's CPUs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from wirespeed.tools.bench import HostCpus

T = TypeVar("T")


def refuse_repeats(name: str, values: list[T]) -> list[T]:
    """values unchanged; a ValueError naming the first one given twice (a repeat would
    only run the same measurement again under the same label)."""
    repeated = next((value for i, value in enumerate(values) if value in values[:i]), None)
    if repeated is not None:
        raise ValueError(f"{name}: {repeated!r} is given twice")
    return values


def distinct_counts(settings: Sequence[int | str], cpus: HostCpus) -> list[tuple[int | str, int]]:
    """Each setting with the count it comes to on this host, in order, without a setting
    that comes to an earlier one's count ("all" on a one-CPU host after 1)."""
    chosen: list[tuple[int | str, int]] = []
    for setting in settings:
        count = setting if isinstance(setting, int) else max(1, cpus.count)
        if all(count != earlier for _, earlier in chosen):
            chosen.append((setting, count))
    return chosen
