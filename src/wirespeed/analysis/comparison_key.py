"""What makes two figures comparable across runs: the comparison key of a measurement.

Two runs' figures belong on one line of a trend only when they measured the same thing
the same way: the same kind of test with the same settings (protocol, direction, rate,
datagram size, streams, a benchmark's or a search's options), the same measurement with
the same labels (flow, frame size, block size), on the same path (its name, topology and
link: rate, MTU, queue), in the same variant, with the same major version of the tool.
What is *not* in it is what a trend is about: the device's firmware, kernel, release and
a lab DUT's emulated limits, which are what changes between the groups.

One small function, so that a richer key (the identity a bundle carries) can replace it
without touching the trend's statistics.
"""

from __future__ import annotations

from dataclasses import dataclass

from wirespeed.model import Measurement, Trial
from wirespeed.store.records import bench_fields, spec_fields


@dataclass(frozen=True)
class ComparisonKey:
    tool: str  # the kind's tool: "iperf3", "openssl"
    tool_major: str | None  # "3" of iperf 3.12; None where the tool did not say
    settings: tuple[tuple[str, str], ...]  # the test's settings, as text, sorted
    path: str
    topology: str
    link: str | None  # "gbe 1500" (name, MTU and queue): None where the path has none
    variant: str
    name: str  # the measurement's
    labels: tuple[tuple[str, str], ...]

    def differences(self, other: ComparisonKey) -> tuple[str, ...]:
        """The fields in which the two keys differ, by name: what a reader is told when
        figures are not set side by side."""
        return tuple(
            field
            for field in self.__dataclass_fields__
            if getattr(self, field) != getattr(other, field)
        )


def comparison_key(
    trial: Trial, measurement: Measurement, tool_version: str | None
) -> ComparisonKey:
    """The key of `measurement` of `trial`, whose tool said `tool_version`."""
    test = trial.test
    settings: dict[str, object] = {}
    if test.bench is not None or test.search is not None:
        settings |= {"options": bench_fields(test.bench or test.search)}
    else:
        settings |= spec_fields(test.spec)
    link = trial.path.link
    link_text = None
    if link is not None:
        link_text = f"{link.name} mtu {link.mtu}"
        if link.queue is not None:
            link_text += f" queue {link.queue:g} s"
    major = tool_version.split(".", 1)[0].strip() or None if tool_version else None
    return ComparisonKey(
        tool=test.tool.value,
        tool_major=major,
        settings=tuple(sorted((k, repr(v)) for k, v in settings.items())),
        path=trial.path.name,
        topology=trial.path.topology.value,
        link=link_text,
        variant=trial.variant,
        name=measurement.name,
        labels=measurement.labels,
    )
