"""What measurements a test will yield, known from the plan alone: their names, units and
labels, and the label values its settings produce (a search's frame sizes and
directions, openssl's ciphers and block sizes).

`expect:` names a measurement and picks its cells by labels; this is what it is checked
against, so that a typo is answered with what the test measures. What every kind
shares is here: the measurements a kind declares (trial_kind.py `measures`) and those of
latency probes beside a kind's flows (analysis/latency.py's names; not imported: the
plan sits beside analysis). What a kind's own settings make it measure, its function
names (its `yields` hook, kinds/, plan/kind_yields.py).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Protocol, cast

from wirespeed.expectations import Labels
from wirespeed.model import PowerSettings, TestCase
from wirespeed.trial_kind import Figures, hooks_of, kind_of
from wirespeed.units import parse_size


def _no_values() -> Mapping[str, tuple[str, ...]]:
    return MappingProxyType({})


@dataclass(frozen=True)
class Yield:
    """One measurement a test yields: its unit, the labels that tell its cells apart
    (in the order reports write them), the values each label takes where the plan says
    (absent: not known before it runs, as a board's CPU clusters), and which of those
    labels every cell has (the rest, only some: a search's goals that found nothing)."""

    name: str
    unit: str
    labels: tuple[str, ...] = ()
    values: Mapping[str, tuple[str, ...]] = field(default_factory=_no_values)
    signed: bool = False  # may be below 0 (a latency increase); others never are

    def slots(self, chosen: Labels) -> tuple[Labels, ...]:
        """The label sets of the known labels that match `chosen`: each a cell that must
        be measured. () when the labels' values are not all known."""
        known = [key for key in self.labels if key in self.values]
        if not known:
            return ()
        picked = dict(chosen)
        choices = [
            [(key, value) for value in self.values[key] if picked.get(key, value) == value]
            for key in known
        ]
        return tuple(tuple(combination) for combination in itertools.product(*choices))


@dataclass(frozen=True)
class Yields:
    """Every measurement of a test; open: it may yield names not listed (UnixBench's,
    each labelled with its copies, in a unit only its output says)."""

    measurements: tuple[Yield, ...]
    open: bool = False

    def get(self, name: str) -> Yield | None:
        found = next((y for y in self.measurements if y.name == name), None)
        if found is None and self.open:
            return Yield(name, "", ("copies",))
        return found

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(y.name for y in self.measurements)


class KindYields(Protocol):
    """A kind's `yields` hook (kinds/hooks.py): what its settings make it measure; `power` is
    the plan's `power:` (None: the plan has none)."""

    def __call__(self, test: TestCase, power: PowerSettings | None) -> Yields: ...


# How a label's value may be written in a plan, and how the measurement writes it:
# `frame: 1518` is "1518 B", `block: 8K` is "8 KB".
def _frame(value: object) -> str:
    text = str(value).strip()
    number = text[:-1].strip() if text.upper().endswith("B") else text
    if not number.isdigit():
        raise ValueError(f"expected a frame size in bytes such as 1518, got {value!r}")
    return f"{int(number)} B"


def _block(value: object) -> str:
    from wirespeed.tools.openssl import block_label

    try:
        written = value if isinstance(value, int) else str(value).replace(" ", "")
        return block_label(parse_size(written))
    except ValueError:
        raise ValueError(f"expected a block size such as 16, 1K or 8K, got {value!r}") from None


def threads_label(value: object) -> str:
    from wirespeed.tools.sevenzip import thread_label

    text = str(value).strip()
    if text in {"all", "all threads"}:
        return "all threads"
    number = text.split()[0] if text.split() else text
    if not number.isdigit():
        raise ValueError(f"expected a thread count such as 1 or all, got {value!r}")
    count = int(number)
    return thread_label(count, count)


def _copies(value: object) -> str:
    from wirespeed.tools.unixbench import copies_label

    text = str(value).split()[0] if str(value).split() else str(value)
    if not text.isdigit():
        raise ValueError(f"expected a number of copies such as 1 or 4, got {value!r}")
    return copies_label(int(text))


NORMALIZE: dict[str, Callable[[object], str]] = {
    "frame": _frame,
    "block": _block,
    "threads": threads_label,
    "copies": _copies,
}


def label_value(label: str, value: object) -> str:
    """A label's value as the measurement writes it; ValueError saying how to write it."""
    if isinstance(value, dict | list) or value is None:
        raise ValueError(f"expected a value of {label}, got {value!r}")
    normalize = NORMALIZE.get(label)
    return normalize(value) if normalize is not None else str(value)


def known_values(**values: Sequence[str]) -> Mapping[str, tuple[str, ...]]:
    """The values each label takes, known from the plan, as a Yield keeps them."""
    return MappingProxyType({key: tuple(found) for key, found in values.items()})


_LOADS = ("idle", "loaded")
_STATISTICS = ("p50", "p90", "p99", "max")


def latency_yields() -> tuple[Yield, ...]:
    """analysis/latency.py's, of a test with probes. The increase's `way`: the round
    trip always; up and down only where irtt measured them (not known before)."""
    return (
        Yield("latency increase", "ms", ("way",), known_values(way=("round trip",)), signed=True),
        Yield("rtt", "ms", ("load", "statistic"), known_values(load=_LOADS, statistic=_STATISTICS)),
        Yield("probe loss", "%", ("load",), known_values(load=_LOADS)),
    )


def yields_of(test: TestCase, power: PowerSettings | None = None) -> Yields:
    """What `test` yields besides a traffic test's flow figures (goodput, loss, jitter,
    retransmits), which plan/expect.py reads in their own forms; `power`: the plan's.
    What the kind declares, the probes' beside its flows, and what its own function
    (its `yields` hook, kinds/) names from its settings."""
    kind = kind_of(test.tool)
    found = tuple(
        Yield(m.name, m.unit, tuple(k for k, _ in m.labels), dict(m.labels)) for m in kind.measures
    )
    if kind.yields is Figures.FLOWS and test.spec.probes is not None:
        found = (*found, *latency_yields())
    kind_yields = cast(KindYields | None, hooks_of(test.tool).yields)
    if kind_yields is None:
        return Yields(found)
    own = kind_yields(test, power)
    return Yields((*found, *own.measurements), open=own.open)
