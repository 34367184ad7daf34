"""A validated plan: what the rest of wirespeed reads. Frozen dataclasses, no pydantic."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from wirespeed.expectations import Expectation, TestExpectations
from wirespeed.hosts.ssh_target import SshTarget
from wirespeed.model import (
    ForwardingLimit,
    LinkModel,
    PathSpec,
    PowerSettings,
    TestCase,
    Tool,
    Topology,
)
from wirespeed.plan.problems import Problem


@dataclass(frozen=True)
class PortPlan:
    """A port of this machine that is a host for the run (plan/ports.py): moved into a
    namespace of its own, given address (with its prefix), a default route via gateway
    and mtu; force moves it even if it carries the default route or the SSH session."""

    interface: str
    address: str  # 192.168.1.50/24
    gateway: str | None = None
    mtu: int | None = None
    force: bool = False


@dataclass(frozen=True)
class HostPlan:
    """A real host of the plan. Without ssh it is the machine wirespeed runs on (with
    port, in a namespace of its own around that port)."""

    name: str
    address: str | None = None  # where the other end sends iperf traffic
    ssh: SshTarget | None = None
    port: PortPlan | None = None

    @property
    def is_local(self) -> bool:
        return self.ssh is None

    @property
    def traffic_address(self) -> str | None:
        """The address iperf connects to: the given one, else the one SSH logs in to."""
        if self.port is not None:
            return self.port.address.partition("/")[0]
        if self.address is not None:
            return self.address
        return None if self.ssh is None else self.ssh.host


@dataclass(frozen=True)
class LabPlan:
    """The emulated lab: its link model (line rate and MTU) for every lab path, and the
    forwarding limit of every lab path's DUT that does not set its own (None: none)."""

    link: LinkModel
    limit: ForwardingLimit | None = None

    @property
    def mtu(self) -> int:
        return self.link.mtu


RPS_SPREAD = "spread"  # every CPU of the host that owns the queue
TUNE_SUGGEST = "suggest"  # a variant's `tune:`: what `tune suggest` proposes for the DUT


@dataclass(frozen=True)
class Variant:
    """A named state of the system under test; the trials of each variant run in it.

    None (or no offloads) leaves that knob as it is. rps and xps are a hex CPU mask as
    sysfs takes it ("0" turns steering off) or RPS_SPREAD. offloads are (feature, on|off)
    with ethtool's long feature names, in the order written.

    The CPU keys act on the DUT's own CPUs: cpus_online is the sorted set of CPUs left
    online (every other one that can go offline does; cpu0 is always in it), governor a
    cpufreq governor for every policy, max_freq kHz for every policy (ALL_POLICIES) or
    per policy, each named by its first CPU.
    """

    name: str = "default"
    mtu: int | None = None
    rps: str | None = None
    xps: str | None = None
    offloads: tuple[tuple[str, str], ...] = ()
    cpus_online: tuple[int, ...] | None = None
    governor: str | None = None
    max_freq: tuple[tuple[int, int], ...] = ()  # (policy's first CPU or ALL_POLICIES, kHz)
    # Options of every tunnel path in this variant, (key, value) as TunnelSpec names them:
    # the tunnel is built per trial, so nothing of the system is changed or journaled.
    tunnel: tuple[tuple[str, object], ...] = ()
    # TUNE_SUGGEST: what `tune suggest` proposes for the DUT (IRQ affinity, RPS, XPS),
    # read from the DUT's facts when the variant starts, journaled like the rest.
    tune: str | None = None
    # The test ids that run in this variant; None: every test (a card's tuned variant
    # runs its network parts only: tuning the NICs changes no cipher's speed).
    tests: tuple[str, ...] | None = None

    @property
    def changes_nothing(self) -> bool:
        return not (self.changes_links or self.changes_cpus or self.tune is not None)

    def runs(self, test_id: str) -> bool:
        return self.tests is None or test_id in self.tests

    @property
    def changes_links(self) -> bool:
        """Sets a knob of the network interfaces (MTU, RPS, XPS, offloads)."""
        return (
            self.mtu is not None
            or self.rps is not None
            or self.xps is not None
            or any(self.offloads)
        )

    @property
    def changes_cpus(self) -> bool:
        """Sets a knob of the DUT's CPUs (cores online, governor, maximum frequency)."""
        return self.cpus_online is not None or self.governor is not None or bool(self.max_freq)

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
        if self.cpus_online is not None:
            found["cpus_online"] = list(self.cpus_online)
        if self.governor is not None:
            found["governor"] = self.governor
        if self.tunnel:
            found["tunnel"] = dict(self.tunnel)
        if self.tune is not None:
            found["tune"] = self.tune
        if self.tests is not None:
            found["tests"] = list(self.tests)
        if self.max_freq:
            found["max_freq_khz"] = {
                "all policies" if policy == ALL_POLICIES else f"policy{policy}": khz
                for policy, khz in self.max_freq
            }
        return found


ALL_POLICIES = -1  # max_freq's key for "every cpufreq policy"


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
    # `power:`: idle baseline and power meter for every traffic trial; None: neither.
    power: PowerSettings | None = None

    def expectations_for(self, test_id: str, path: str, variant: str) -> tuple[Expectation, ...]:
        """What test `test_id` must reach on `path` in `variant`; () when nothing."""
        expectations = self.expectations.get(test_id)
        return () if expectations is None else expectations.for_cell(path, variant)

    def paths_for(self, test: TestCase) -> tuple[PathSpec, ...]:
        """The paths this test runs on, in plan order."""
        chosen = self.test_paths.get(test.id)
        if chosen is None:
            # A benchmark runs on the device paths, iperf on the others.
            return tuple(p for p in self.paths if runs_on(test.tool, p))
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


def runs_on(tool: Tool, path: PathSpec) -> bool:
    """Whether a test of this tool can run on the path: a benchmark on a device path
    (one host), a traffic tool on the others (a client and a server)."""
    return tool.moves_traffic is not (path.topology is Topology.DEVICE)
