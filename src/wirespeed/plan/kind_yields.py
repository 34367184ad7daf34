"""What each kind's settings make it measure, known from the plan alone: the functions
each kind's module gives as its `yields` hook (plan/yields.py adds what every kind shares).

Each is called with the test and the plan's `power:` (None: the plan has none), and
names the measurements its kind's code produces: search/measurements.py,
tools/openssl.py, tools/sevenzip.py, analysis/power.py (not imported: the plan sits
beside analysis), tools/rrul.py. UnixBench's names come from the tests its `./Run` finds,
so a UnixBench test takes any name.
"""

from __future__ import annotations

from wirespeed.model import PowerSettings, TestCase
from wirespeed.plan.yields import Yield, Yields, known_values, threads_label


def forwarding_yields(test: TestCase, power: PowerSettings | None) -> Yields:
    """The search's goals, each at every frame size and direction of its options."""
    from wirespeed.plan.forwarding import ForwardingOptions

    options = test.settings_as(ForwardingOptions)
    labels = ("frame", "direction")
    cells = known_values(
        frame=[f"{size} B" for size in options.frame_sizes],
        direction=[str(direction) for direction in options.directions],
    )
    found: list[Yield] = []
    for goal in options.goals:
        name = str(goal.name)
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
    return Yields(tuple(found))


def openssl_yields(test: TestCase, power: PowerSettings | None) -> Yields:
    """One measurement per cipher, at each block size and API of its options."""
    from wirespeed.tools import openssl

    options = test.settings_as(openssl.Options)
    apis = {"both": ("no EVP", "EVP"), "with": ("EVP",), "without": ("no EVP",)}[options.evp]
    values = {"block": [openssl.block_label(int(size)) for size in options.blocks]}
    values["api"] = list(apis)
    labels: tuple[str, ...] = ("block", "api", "cluster")
    if options.multi is not None:
        labels = (*labels, "processes")
        values["processes"] = [str(options.multi)]
    return Yields(
        tuple(
            Yield(openssl.measurement_name(str(cipher)), "B/s", labels, known_values(**values))
            for cipher in options.ciphers
        )
    )


def sevenzip_yields(test: TestCase, power: PowerSettings | None) -> Yields:
    from wirespeed.tools.sevenzip import SevenZipOptions

    threads = [threads_label(setting) for setting in test.settings_as(SevenZipOptions).threads]
    # "all threads" is named so on every board; a count names the count.
    values = known_values(threads=threads) if threads else known_values()
    return Yields(
        tuple(
            Yield(name, "MIPS", ("threads",), values)
            for name in ("compress", "decompress", "total")
        )
    )


def unixbench_yields(test: TestCase, power: PowerSettings | None) -> Yields:
    """Open: its names are those of the tests its `./Run` finds."""
    return Yields((), open=True)


def iperf_yields(test: TestCase, power: PowerSettings | None) -> Yields:
    """The board's power, in a plan with `power:` (run/trial.py measures it)."""
    return Yields(power_yields(power) if power is not None else ())


def rrul_yields(test: TestCase, power: PowerSettings | None) -> Yields:
    """Its responsiveness, when it adds streams until the load is stable."""
    if not test.spec.until_stable:
        return Yields(())
    return Yields(
        (Yield("responsiveness", "RPM", ("method",), known_values(method=("RPM-like",))),)
    )


def power_yields(power: PowerSettings) -> tuple[Yield, ...]:
    """analysis/power.py's, of an iperf trial in a plan with `power:`: from the meter
    where the plan names one, else from the DUT's hwmon channels."""
    source = known_values(source=("meter" if power.meter else "hwmon",))
    return (
        Yield("power idle", "W", ("source",), source),
        Yield("power load", "W", ("source",), source),
        Yield("energy per Mbit", "mJ/Mbit", ("source",), source),
    )
