"""A validated plan: what the rest of wirespeed reads. Frozen dataclasses, no pydantic."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from wirespeed.model import LinkModel, PathSpec, TestCase
from wirespeed.plan.problems import Problem

# Hosts, users and ports as they are written, and nothing else: these values reach
# command lines (iperf's -c, and on an SSH device a shell), so `;`, `$(`, quotes, spaces
# and a leading `-` (an option to whatever reads it) are refused here, at the door.
_LABEL = r"[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?"
_HOST_NAME = re.compile(rf"{_LABEL}(?:\.{_LABEL})*\.?")
_ZONE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,14}")  # fe80::1%eth0: an interface name
_SSH = re.compile(
    r"(?:(?P<user>[A-Za-z0-9_][A-Za-z0-9_.-]{0,63})@)?"
    r"(?P<host>\[[^\[\]]*\]|[^@:\[\]]+)(?::(?P<port>[0-9]{1,5}))?"
)


def is_host(text: str) -> bool:
    """An IPv4 or IPv6 address (with a zone, fe80::1%eth0) or a DNS host name."""
    if len(text) > 253:
        return False
    if _HOST_NAME.fullmatch(text):
        return True
    address, _, zone = text.partition("%")
    if zone and not _ZONE.fullmatch(zone):
        return False
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return False
    return not zone or parsed.version == 6


@dataclass(frozen=True)
class SshTarget:
    """Where to log in: `root@192.168.0.62:22`. user None: ssh's own default; port None:
    the one ~/.ssh/config gives the host, else 22 (a port written out wins over both)."""

    host: str
    user: str | None = None
    port: int | None = None

    def __post_init__(self) -> None:
        if not self.host:
            raise ValueError("an SSH target needs a host")
        if self.port is not None and not 1 <= self.port <= 65535:
            raise ValueError(f"SSH port {self.port} is not in 1..65535")

    @classmethod
    def parse(cls, text: str) -> SshTarget:
        """'root@192.168.0.62', 'root@r4s.lan:2222', '[fe80::1]:22' -> SshTarget."""
        match = _SSH.fullmatch(text)
        if not match:
            raise ValueError(
                f"{text!r} is not an SSH target: write user@host or user@host:port "
                "(a user of letters, digits and . _ -)"
            )
        host = match["host"]
        if host.startswith("["):
            host = host[1:-1]  # [IPv6]:port; the brackets only separate the port
            if ":" not in host or not is_host(host):
                raise ValueError(f"{text!r} is not an SSH target: [{host}] is not an IPv6 address")
        elif not is_host(host):
            raise ValueError(
                f"{text!r} is not an SSH target: {host!r} is not an IP address or a host name "
                "(letters, digits, - and .; IPv6 in brackets: root@[fe80::1]:22)"
            )
        port = int(match["port"]) if match["port"] else None
        return cls(host=host, user=match["user"], port=port)

    def __str__(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        user = f"{self.user}@" if self.user else ""
        return f"{user}{host}" if self.port is None else f"{user}{host}:{self.port}"


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
