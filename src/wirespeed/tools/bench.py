"""The driver protocol of a benchmark that runs on one host (openssl speed, 7-zip, UnixBench).

A driver is a module with constants and two pure functions: `commands` builds the argv
of each command from the test's options and what the host is (its CPUs, clusters,
whether it has taskset), and `parse` turns one command's output into measurements. The
run loop (bench_trial.py) runs the commands, keeps their raw output, samples the host,
and adds the command's labels to each measurement it parsed: nothing in report/,
analysis/ or store/ knows any benchmark by name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, cast

from pydantic import BaseModel

from wirespeed.model import BenchSpec, Measurement, TestCase, Tool
from wirespeed.trial_kind import hooks_of, kind_of


class BenchParseError(ValueError):
    """The output holds no figure this driver knows: an error, never an empty success."""


@dataclass(frozen=True)
class HostCpus:
    """What a benchmark's argv may depend on: the host's CPUs, as read just before."""

    count: int  # online CPUs
    clusters: tuple[tuple[int, ...], ...] = ()  # CPUs by core type/cpufreq policy, >1: big.LITTLE
    cluster_names: tuple[str, ...] = ()  # "Cortex-A72 (cpu4-5)", one per cluster
    has_taskset: bool = False


@dataclass(frozen=True)
class Command:
    """One command of a benchmark, and the labels its measurements get."""

    argv: tuple[str, ...]
    labels: tuple[tuple[str, str], ...] = ()
    timeout: float = 600.0  # seconds it may take before it is stopped as hung
    cwd: str | None = None  # where to run it (UnixBench's ./Run wants its own directory)
    # Keep only the measurements whose label `key` has one of these values: a tool that
    # measures more than was asked (an old openssl runs all its block sizes).
    only: tuple[tuple[str, frozenset[str]], ...] = ()

    def keeps(self, measurement: Measurement) -> bool:
        labels = dict(measurement.labels)
        return all(labels.get(key) in values for key, values in self.only)


class BenchDriver(Protocol):
    """What a benchmark's module offers the run loop (see tools/openssl.py)."""

    TOOL: Tool
    # The program's names, in the order to look for them on a host ("7zz", "7z", "7za").
    PROGRAMS: tuple[str, ...]
    # Where to get it, for the message when a host lacks it: {"Debian": "7zip", ...}.
    PACKAGES: Mapping[str, str]
    # The programs it runs, whose CPU is the benchmark itself: never "background load";
    # empty when they are too many to name (then no process is judged during it).
    WORKLOAD: tuple[str, ...]

    # The plan's `options:` for this tool (extra keys forbidden, defaults as the seeds);
    # `commands` gets its model_dump(). (Read-only here, so that a module's own class
    # satisfies the protocol.)
    @property
    def Options(self) -> type[BaseModel]: ...

    def commands(
        self,
        options: Mapping[str, object],
        program: str,
        cpus: HostCpus,
        *,
        version: str | None = None,
    ) -> Sequence[Command]: ...

    def notices(
        self, options: Mapping[str, object], cpus: HostCpus, version: str | None
    ) -> list[str]:
        """What the run should say before measuring: an unpinned big.LITTLE board, an
        old tool that cannot do what was asked ..."""
        ...

    def parse(self, text: str) -> tuple[Measurement, ...]: ...

    def version_argv(self, program: str) -> Sequence[str] | None: ...

    def parse_version(self, text: str) -> str | None: ...


ALL = "all"


def count_or_all(what: str, maximum: int) -> Callable[[object], object]:
    """A plan option's validator: a whole number 1..maximum of `what` (threads, copies)
    or "all" (as many as the host has CPUs); YAML's true is not a number."""

    def check(value: object) -> object:
        if value == ALL:
            return value
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"expected a number of {what} or 'all', got {value!r}")
        if not 1 <= value <= maximum:
            raise ValueError(f"{what} must be 1..{maximum} or 'all', got {value}")
        return value

    return check


def benchmark_of(test: TestCase) -> tuple[BenchDriver, BenchSpec] | None:
    """A benchmark on one host: its driver and its options; None for a test of a kind
    that is none (traffic, a search, bounceback between the path's ends)."""
    kind = kind_of(test.tool)
    if kind.moves_traffic or test.bench is None:
        return None
    return cast(BenchDriver, hooks_of(test.tool).driver), test.bench


def with_labels(
    measurements: Sequence[Measurement], labels: tuple[tuple[str, str], ...]
) -> tuple[Measurement, ...]:
    """The command's labels (cluster, threads) after the parser's own."""
    if not labels:
        return tuple(measurements)
    return tuple(
        Measurement(m.name, m.unit, m.better, m.value, (*m.labels, *labels)) for m in measurements
    )
