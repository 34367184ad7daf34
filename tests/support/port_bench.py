"""Two "ports" of this machine wired to a router, built with plain `ip`, `tc` and
`ethtool` (none of wirespeed's lab code), so wirespeed cannot tell them from NICs.

    this machine            namespace ROUTER (forwards, no NAT)
    port_a  ── veth ──  a-side 192.168.71.1/24
    port_b  ── veth ──  b-side 10.71.0.1/24

Each router side is shaped as a gigabit Ethernet link (tbf 1gbit, overhead 24 for the
preamble, FCS and gap the skb lacks, a burst of 2 ms and a queue of 20 ms as the lab's
links have: lab/shaping.py; offloads off on every end: LIMITS.md), so TCP through it
tops out at 941.5 Mbit/s. port_a starts with an address, a route, MTU 1400 and
per-interface sysctls set (PORT_A_SYSCTLS), up; port_b down and bare: what wirespeed
must give back exactly.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_serial = itertools.count(1)
# Set on port_a as a user sets them: the kernel resets them when the port moves.
PORT_A_SYSCTLS = {
    "ipv4/conf/{}/rp_filter": "2",
    "ipv4/conf/{}/arp_ignore": "1",
    "ipv6/conf/{}/accept_ra": "0",
    "ipv4/neigh/{}/base_reachable_time_ms": "45500",
}
PLAN = """\
title: two ports of this machine through a router
hosts:
  lan-side: {{port: {a}, address: 192.168.71.50/24, gateway: 192.168.71.1}}
  wan-side: {{port: {b}, address: 10.71.0.2/24, gateway: 10.71.0.1}}
paths:
  - {{name: routed, topology: router, client: lan-side, server: wan-side, link: gbe}}
tests:
  - {{id: tcp, protocol: tcp, duration: {duration}}}
"""

PLAN_OF_THREE = """\
title: three ports of this machine through a router
hosts:
  lan-side: {{port: {a}, address: 192.168.71.50/24, gateway: 192.168.71.1}}
  wan-side: {{port: {b}, address: 10.71.0.2/24, gateway: 10.71.0.1}}
  lan2-side: {{port: {c}, address: 192.168.72.50/24, gateway: 192.168.72.1, mtu: 1400}}
paths:
  - {{name: lan, topology: router, client: lan-side, server: wan-side, link: gbe}}
  - {{name: lan2, topology: router, client: lan2-side, server: wan-side, link: gbe}}
tests:
  - {{id: tcp, protocol: tcp, duration: {duration}}}
"""


def ip(*argv: str, check: bool = True) -> str:
    done = subprocess.run(["ip", *argv], capture_output=True, text=True, check=False)
    if check and done.returncode != 0:
        raise AssertionError(f"ip {' '.join(argv)}: {done.stderr}")
    return done.stdout


@dataclass(frozen=True)
class PortBench:
    router: str  # the router's namespace
    port_a: str
    port_b: str
    own_subnet: str  # port_a's address before the run, in this machine's namespace
    port_c: str | None = None  # a second LAN port, c-side 192.168.72.1/24

    def plan_of_three(self, duration: float = 2) -> str:
        """Two LANs to the WAN: three ports, two paths."""
        return PLAN_OF_THREE.format(a=self.port_a, b=self.port_b, c=self.port_c, duration=duration)

    def plan(self, duration: float = 3) -> str:
        return PLAN.format(a=self.port_a, b=self.port_b, duration=duration)

    @property
    def ports(self) -> tuple[str, ...]:
        return (self.port_a, self.port_b) + ((self.port_c,) if self.port_c else ())

    def state(self) -> dict[str, Any]:
        """What a port must have back: `ip -j addr`, `ip -j route`, `ip -j link` of each,
        taken once IPv6 duplicate detection of the link-local address is over."""
        found: dict[str, Any] = {}
        for port in self.ports:
            deadline = time.monotonic() + 10
            while "tentative" in (addresses := ip("-j", "addr", "show", "dev", port)):
                assert time.monotonic() < deadline, f"{port}: an address stays tentative"
                time.sleep(0.1)
            (link,) = json.loads(ip("-j", "link", "show", "dev", port))
            found[port] = {
                "addresses": json.loads(addresses)[0]["addr_info"],
                "routes": json.loads(ip("-j", "route", "show", "table", "all", "dev", port)),
                "mtu": link["mtu"],
                "up": "UP" in link["flags"],
                "sysctls": sysctls(port),
            }
        return found

    def in_this_namespace(self, port: str) -> bool:
        done = subprocess.run(["ip", "link", "show", "dev", port], capture_output=True, check=False)
        return done.returncode == 0


def sysctls(port: str) -> dict[str, str]:
    """Every writable per-interface sysctl of the port in this namespace, by path."""
    found = {}
    for family, kind in (("ipv4", "conf"), ("ipv4", "neigh"), ("ipv6", "conf"), ("ipv6", "neigh")):
        directory = Path("/proc/sys/net") / family / kind / port
        for path in sorted(directory.iterdir()) if directory.is_dir() else []:
            if os.access(path, os.W_OK):
                with contextlib.suppress(OSError):  # an unset stable_secret
                    found[str(path)] = path.read_text()
    return found


@contextlib.contextmanager
def port_bench(*, second_lan: bool = False) -> Iterator[PortBench]:
    tag = f"pt{os.getpid() % 100000}-{next(_serial)}"
    third = (os.getpid() + next(_serial)) % 250 + 1
    port_c = f"{tag}c" if second_lan else None
    bench = PortBench(f"{tag}r", f"{tag}a", f"{tag}b", f"100.127.{third}.5/24", port_c)
    ip("netns", "add", bench.router)
    try:
        _wire(bench)
        yield bench
    finally:
        _remove(bench)


def _wire(bench: PortBench) -> None:
    router = ["-n", bench.router]
    ip("link", "add", bench.port_a, "type", "veth", "peer", "name", "a-side", "netns", bench.router)
    ip("link", "add", bench.port_b, "type", "veth", "peer", "name", "b-side", "netns", bench.router)
    ip(*router, "link", "set", "lo", "up")
    ip(*router, "addr", "add", "192.168.71.1/24", "dev", "a-side")
    ip(*router, "addr", "add", "10.71.0.1/24", "dev", "b-side")
    sides = ["a-side", "b-side"]
    if bench.port_c is not None:
        ip("link", "add", bench.port_c, "type", "veth", "peer", "name", "c-side", "netns",
           bench.router)  # fmt: skip
        ip(*router, "addr", "add", "192.168.72.1/24", "dev", "c-side")
        sides.append("c-side")
    inside = ["ip", "netns", "exec", bench.router]
    subprocess.run([*inside, "sysctl", "-qw", "net.ipv4.ip_forward=1"], check=True)
    for side in sides:
        ip(*router, "link", "set", side, "up")
        subprocess.run([*inside, "ethtool", "-K", side, "tso", "off", "gso", "off", "gro", "off"],
                       check=True, capture_output=True)  # fmt: skip
        subprocess.run(
            [*inside, "tc", "qdisc", "add", "dev", side, "root", "tbf", "rate", "1gbit",
             "burst", "250000", "limit", "2500000", "overhead", "24", "mpu", "84"],
            check=True,
        )  # fmt: skip
    for port in bench.ports:
        subprocess.run(["ethtool", "-K", port, "tso", "off", "gso", "off", "gro", "off"],
                       check=True, capture_output=True)  # fmt: skip
    # port_a as a user left it: an address of its own, a route through it, MTU 1400, up.
    ip("link", "set", "dev", bench.port_a, "mtu", "1400")
    ip("addr", "add", bench.own_subnet, "dev", bench.port_a)
    ip("link", "set", "dev", bench.port_a, "up")
    for key, value in PORT_A_SYSCTLS.items():
        Path("/proc/sys/net", key.format(bench.port_a)).write_text(value + "\n")
    gateway = bench.own_subnet.rsplit(".", 1)[0] + ".1"
    # As unique as the subnet: benches of tests run at once share this namespace.
    routed = bench.own_subnet.replace("100.127.", "100.126.").replace(".5/24", ".0/24")
    ip("route", "add", routed, "via", gateway, "dev", bench.port_a, "metric", "7")


def _remove(bench: PortBench) -> None:
    """Everything the bench made, and whatever a run left in the ports' namespaces."""
    for namespace in (*(f"{port}-port" for port in bench.ports), bench.router):
        pids = ip("netns", "pids", namespace, check=False).split()
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(pid), signal.SIGKILL)
        ip("netns", "del", namespace, check=False)
    for port in bench.ports:  # gone with their peers in the router's namespace
        ip("link", "del", port, check=False)


@contextlib.contextmanager
def ports_in_a_host(bench: PortBench) -> Iterator[str]:
    """A namespace standing for this machine, holding port_a (192.168.71.7/24,
    2001:db8:71::7/64) and port_b (10.71.0.7/24, 2001:db8:72::7/64), up: wirespeed
    run in it (`nsenter --net=/run/netns/HOST`) sees them as its own ports, and the
    test can give that machine routes a shared machine's own namespace must not get
    (a default route). Removed with both ports, whatever happened."""
    host = f"{bench.router}h"
    ip("netns", "add", host)
    try:
        ip("-n", host, "link", "set", "lo", "up")
        for port, four, six in (
            (bench.port_a, "192.168.71.7/24", "2001:db8:71::7/64"),
            (bench.port_b, "10.71.0.7/24", "2001:db8:72::7/64"),
        ):
            ip("link", "set", "dev", port, "netns", host)
            ip("-n", host, "addr", "add", four, "dev", port)
            ip("-n", host, "addr", "add", six, "nodad", "dev", port)
            ip("-n", host, "link", "set", "dev", port, "up")
        yield host
    finally:
        for port in bench.ports:
            ip("-n", host, "link", "del", port, check=False)
        pids = ip("netns", "pids", host, check=False).split()
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(pid), signal.SIGKILL)
        ip("netns", "del", host, check=False)


def routes_someone_added(namespace: str) -> list[str]:
    """`ip -j route show table all` in the namespace without the kernel's own routes,
    each as sorted JSON: what a run must leave as it found it."""
    found = json.loads(ip("-n", namespace, "-j", "route", "show", "table", "all"))
    kernels = ("local", "broadcast", "multicast", "anycast")
    return sorted(
        json.dumps(route, sort_keys=True)
        for route in found
        if route.get("protocol") != "kernel" and route.get("type") not in kernels
    )
