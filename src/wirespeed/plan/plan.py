"""A validated plan: what the rest of wirespeed reads. Frozen dataclasses, no pydantic."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from wirespeed.expectations import Expectation, TestExpectations
from wirespeed.hosts.ssh_target import SshTarget
from wirespeed.model import LinkModel, PathSpec, TestCase
from wirespeed.plan.problems import Problem


@dataclass(frozen=True)
class HostPlan:
    """A real host of the plan. Without ssh it is the machine wirespeed runs on."""

    name: str
    address: str | None = None  # where the other end sends iperf traffic
    ssh: SshTarget | None = None

    @property
    def is_local(self) -> bool:
        return self.ssh is None

    @property
    def traffic_address(self) -> str | None:
        """The address iperf connects to: the given one, else the one SSH logs in to."""
        if self.address is not None:
            return self.address
        return None if self.ssh is None else self.ssh.host


@dataclass(frozen=True)
class LabPlan:
    """The emulated lab: its link model (line rate and MTU) for every lab path."""

    link: LinkModel

    @property
    def mtu(self) -> int:
        return self.link.mtu


RPS_SPREAD = "spread"  # every CPU of the host that owns the queue


@dataclass(frozen=True)
class Variant:
    """A named state of the system under test; the trials of each variant run in it.

    None (or no offloads) leaves that knob as it is. rps and xps are a hex CPU mask as
    sysfs takes it ("0" turns steering off) or RPS_SPREAD. offloads are (feature, on|off)
    with ethtool's long feature names, in the order written.
    """

    name: str = "default"
    mtu: int | None = None
    rps: str | None = None
    xps: str | None = None
    offloads: tuple[tuple[str, str], ...] = ()

    @property
    def changes_nothing(self) -> bool:
        return self.mtu is None and self.rps is None and self.xps is None and not self.offloads

    def state(self) -> dict[str, object]:
        """What the variant sets, as plain data (run provenance, the A/B report)."""
        found: dict[str, object] = {}
        if self.mtu is not None:
            found["mtu"] = self.mtu
        if self.rps is not None:
            found["rps"] = self.rps
        if self.xps is not None:
            found["xps"] = self.xps
        if self.offloads:
            found["offloads"] = dict(self.offloads)
        return found


DEFAULT_VARIANTS = (Variant(),)


def _no_hosts() -> Mapping[str, HostPlan]:
    return MappingProxyType({})


@dataclass(frozen=True)
class Plan:
    """A plan file that validated: what to run, where, and how often."""

    title: str | None
    source: str  # the file's path, or "<plan>" for text
    text: str  # the file as written, kept with every run for provenance
    paths: tuple[PathSpec, ...]
    tests: tuple[TestCase, ...]
    lab: LabPlan | None = None
    hosts: Mapping[str, HostPlan] = field(default_factory=_no_hosts)
    repetitions: int = 1
    # Tests limited to some paths (`paths:` under a test): test id -> path names.
    test_paths: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    warnings: tuple[Problem, ...] = ()
    # The states to compare; a plan without `variants:` runs in one, "default", that
    # changes nothing.
    variants: tuple[Variant, ...] = DEFAULT_VARIANTS
    # What each test must reach (`expect:`), by test id; tests without are absent.
    expectations: Mapping[str, TestExpectations] = field(default_factory=dict)

    def expectations_for(self, test_id: str, path: str, variant: str) -> tuple[Expectation, ...]:
        """What test `test_id` must reach on `path` in `variant`; () when nothing."""
        expectations = self.expectations.get(test_id)
        return () if expectations is None else expectations.for_cell(path, variant)

    def paths_for(self, test: TestCase) -> tuple[PathSpec, ...]:
        """The paths this test runs on, in plan order."""
        chosen = self.test_paths.get(test.id)
        if chosen is None:
            return self.paths
        return tuple(path for path in self.paths if path.name in chosen)

    def tests_for(self, path: PathSpec) -> tuple[TestCase, ...]:
        """The tests that run on this path, in plan order."""
        return tuple(test for test in self.tests if path in self.paths_for(test))

    def variant(self, name: str) -> Variant:
        for variant in self.variants:
            if variant.name == name:
                return variant
        raise KeyError(name)

    def test(self, test_id: str) -> TestCase:
        for test in self.tests:
            if test.id == test_id:
                return test
        raise KeyError(test_id)
