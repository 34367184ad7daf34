"""What measurements a test will yield, known from the plan alone: their names, units and
labels, and the label values its settings produce (a search's frame sizes and
directions, openssl's ciphers and block sizes).

`expect:` names a measurement and picks its cells by labels; this is what it is checked
against, so that a typo is answered with what the test measures. Each kind's names are
those its code produces: search/measurements.py, tools/openssl.py, tools/sevenzip.py,
analysis/latency.py, analysis/power.py (not imported: the plan sits beside analysis),
tools/rrul.py. UnixBench's names come from the tests its `./Run` finds, so a UnixBench
test takes any name.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from wirespeed.expectations import Labels
from wirespeed.kinds import kind_of
from wirespeed.model import PowerSettings, TestCase, Tool
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


def _threads(value: object) -> str:
    text = str(value).strip()
    if text in {"all", "all threads"}:
        return "all threads"
    number = text.split()[0] if text.split() else text
    if not number.isdigit():
        raise ValueError(f"expected a thread count such as 1 or all, got {value!r}")
    count = int(number)
    return f"{count} thread" if count == 1 else f"{count} threads"


def _copies(value: object) -> str:
    text = str(value).split()[0] if str(value).split() else str(value)
    if not text.isdigit():
        raise ValueError(f"expected a number of copies such as 1 or 4, got {value!r}")
    count = int(text)
    return "1 copy" if count == 1 else f"{count} copies"


NORMALIZE: dict[str, Callable[[object], str]] = {
    "frame": _frame,
    "block": _block,
    "threads": _threads,
    "copies": _copies,
}


def label_value(label: str, value: object) -> str:
    """A label's value as the measurement writes it; ValueError saying how to write it."""
    if isinstance(value, dict | list) or value is None:
        raise ValueError(f"expected a value of {label}, got {value!r}")
    normalize = NORMALIZE.get(label)
    return normalize(value) if normalize is not None else str(value)


def _values(**values: Sequence[str]) -> Mapping[str, tuple[str, ...]]:
    return MappingProxyType({key: tuple(found) for key, found in values.items()})


_LOADS = ("idle", "loaded")
_STATISTICS = ("p50", "p90", "p99", "max")


def latency_yields() -> tuple[Yield, ...]:
    """analysis/latency.py's, of a test with probes. The increase's `way`: the round
    trip always; up and down only where irtt measured them (not known before)."""
    return (
        Yield("latency increase", "ms", ("way",), _values(way=("round trip",))),
        Yield("rtt", "ms", ("load", "statistic"), _values(load=_LOADS, statistic=_STATISTICS)),
        Yield("probe loss", "%", ("load",), _values(load=_LOADS)),
    )


def _forwarding(options: Mapping[str, Any]) -> tuple[Yield, ...]:
    """options: the search's, as validated (plan/forwarding.py) and dumped."""
    labels = ("frame", "direction")
    cells = _values(
        frame=[f"{size} B" for size in options["frame_sizes"]],
        direction=[str(direction) for direction in options["directions"]],
    )
    found: list[Yield] = []
    for goal in options["goals"]:
        name = str(goal["name"])
        found += [
            Yield(name, "pps", labels, cells),
            Yield(f"{name} L2", "bit/s", labels, cells),
            Yield(f"{name} L1", "bit/s", labels, cells),
            Yield(f"{name} of ceiling", "%", labels, cells),
            Yield(f"{name} forwarding rate", "pps", labels, cells),
        ]
    found += [
        Yield("search trials", "count", labels, cells),
        Yield("search time", "s", labels, cells),
    ]
    return tuple(found)


def _openssl(options: Mapping[str, Any]) -> tuple[Yield, ...]:
    """options: openssl's, as validated (tools/openssl.py Options) and dumped."""
    from wirespeed.tools import openssl

    evp = str(options["evp"])
    apis = {"both": ("no EVP", "EVP"), "with": ("EVP",), "without": ("no EVP",)}[evp]
    values = {"block": [openssl.block_label(int(size)) for size in options["blocks"]]}
    values["api"] = list(apis)
    labels: tuple[str, ...] = ("block", "api", "cluster")
    if options.get("multi") is not None:
        labels = (*labels, "processes")
        values["processes"] = [str(options["multi"])]
    return tuple(
        Yield(openssl.measurement_name(str(cipher)), "B/s", labels, _values(**values))
        for cipher in options["ciphers"]
    )


def _sevenzip(options: Mapping[str, Any]) -> tuple[Yield, ...]:
    threads = [_threads(setting) for setting in options.get("threads") or ()]
    # "all threads" is named so on every board; a count names the count.
    values = _values(threads=threads) if threads else _no_values()
    return tuple(
        Yield(name, "MIPS", ("threads",), values) for name in ("compress", "decompress", "total")
    )


def power_yields(power: PowerSettings) -> tuple[Yield, ...]:
    """analysis/power.py's, of an iperf trial in a plan with `power:`: from the meter
    where the plan names one, else from the DUT's hwmon channels."""
    source = _values(source=("meter" if power.meter else "hwmon",))
    return (
        Yield("power idle", "W", ("source",), source),
        Yield("power load", "W", ("source",), source),
        Yield("energy per Mbit", "mJ/Mbit", ("source",), source),
    )


def yields_of(test: TestCase, power: PowerSettings | None = None) -> Yields:
    """What `test` yields besides a traffic test's flow figures (goodput, loss, jitter,
    retransmits), which plan/expect.py reads in their own forms; `power`: the plan's."""
    if test.tool is Tool.FORWARDING:
        assert test.search is not None
        return Yields(_forwarding(test.search.as_dict()))
    if test.tool is Tool.OPENSSL:
        assert test.bench is not None
        return Yields(_openssl(test.bench.as_dict()))
    if test.tool is Tool.SEVENZIP:
        assert test.bench is not None
        return Yields(_sevenzip(test.bench.as_dict()))
    if test.tool is Tool.UNIXBENCH:
        return Yields((), open=True)
    declared = kind_of(test.tool).measures
    if declared:  # a kind that says what it measures, whatever its options (kinds.py)
        return Yields(
            tuple(
                Yield(m.name, m.unit, tuple(k for k, _ in m.labels), dict(m.labels))
                for m in declared
            )
        )
    found: tuple[Yield, ...] = latency_yields() if test.spec.probes is not None else ()
    if power is not None and test.tool in (Tool.IPERF2, Tool.IPERF3):
        found = (*found, *power_yields(power))
    if test.tool is Tool.RRUL and test.spec.until_stable:
        found = (*found, Yield("responsiveness", "RPM", ("method",), _values(method=("RPM-like",))))
    return Yields(found)
