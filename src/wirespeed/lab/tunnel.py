"""A VPN tunnel across a lab for the length of one trial: OpenVPN or WireGuard.

    with lab_tunnel(lab, spec) as tunnel:   # keys made, both ends up and proven
        client connects to tunnel.target    # through the tunnel
        tunnel.findings()                   # its MTUs, DCO or userspace
    # both daemons stopped, their devices, sockets, routes and keys removed

Where the tunnel ends (placement):

    ends: dut      client ══ DUT. endpoint: iperf's server is the DUT, at its tunnel
                   address. router, nat: the server behind the DUT, reached through the
                   tunnel (the DUT decrypts and forwards; router: the server routes the
                   tunnel's subnet back to the DUT; nat: the DUT masquerades it).
    ends: through  client ══ server across a bridge, router or nat DUT, which forwards the
                   encrypted packets only (through NAT: the client starts the tunnel).

A bridge DUT routes nothing and an endpoint lab has no server beyond its DUT: those two
placements are refused (UsageError; the plan refuses them at their line first).

The keys are made for each trial in TUNNEL_DIR/<lab> (mode 0700 under /run, a tmpfs),
files 0600; only their paths reach a command line. The directory goes when the tunnel
goes, and remove_files(lab), called wherever a lab is removed (lab.py), removes it with
the WireGuard sockets a killed daemon leaves: a run killed with SIGKILL leaves its daemons
in the lab's namespaces, and the next run's cleanup of the orphaned lab kills them with
every other process in there, then removes their files here.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Protocol

from wirespeed.errors import LabError, MissingToolError, UsageError
from wirespeed.lab import system
from wirespeed.lab.naming import namespace_name
from wirespeed.lab.topology import ALL_NODES, WAN_PREFIX, Node, TopologyPlan
from wirespeed.model import Finding, FindingKind, Role, Topology, TunnelEnds, TunnelKind, TunnelSpec
from wirespeed.tools import openvpn, tunnels, wireguard

__all__ = [
    "FAR_ADDRESS",
    "NEAR_ADDRESS",
    "TUNNEL_DIR",
    "TUNNEL_SUBNET",
    "BuiltLab",
    "LabTunnel",
    "Placement",
    "describe_mtus",
    "device_name",
    "lab_tunnel",
    "openvpn_findings",
    "placement_for",
    "remove_files",
    "tools_for",
]

TUNNEL_DIR = "/run/wirespeed/tunnels"
# Inside the benchmarking range (RFC 2544), apart from the lab's LAN and WAN subnets.
TUNNEL_PREFIX = "198.18.9"
TUNNEL_SUBNET = f"{TUNNEL_PREFIX}.0/24"
NEAR_ADDRESS = f"{TUNNEL_PREFIX}.2"  # the client's end
FAR_ADDRESS = f"{TUNNEL_PREFIX}.1"  # the DUT's or the server's end
READY_SECONDS = 20.0  # a TLS handshake on a busy 2-core machine takes a second or two
STOP_SECONDS = 3.0


@dataclass(frozen=True)
class Placement:
    """Which nodes hold the tunnel's ends and what the client's traffic is sent to."""

    near: Node  # the connecting end: always the client
    far: Node  # the listening end: the DUT or the server
    far_outer: str  # the far end's address on the lab's links
    target: str  # what iperf's client connects to
    routed: tuple[str, ...]  # what the near end sends into the tunnel besides its subnet
    # (node, destination, via): routes back to the tunnel's subnet beyond the far end
    return_routes: tuple[tuple[Node, str, str], ...] = ()


def placement_for(plan: TopologyPlan, spec: TunnelSpec) -> Placement:
    topology = plan.topology
    if spec.ends is TunnelEnds.DUT:
        if topology is Topology.BRIDGE:
            raise UsageError(
                "a bridge DUT routes nothing, so it cannot be a VPN gateway (ends: dut)",
                hint="use topology router or nat for a VPN gateway, or ends: through",
            )
        dut_address = plan.address_of(Role.DUT, "wan" if topology is Topology.ENDPOINT else "lan")
        assert dut_address is not None
        if topology is Topology.ENDPOINT:
            return Placement(Role.CLIENT, Role.DUT, dut_address, FAR_ADDRESS, ())
        server = plan.server_address
        back = () if plan.masquerade is not None else ((Role.SERVER, TUNNEL_SUBNET, _dut_wan()),)
        return Placement(Role.CLIENT, Role.DUT, dut_address, server, (f"{server}/32",), back)
    if topology is Topology.ENDPOINT:
        raise UsageError(
            "an endpoint lab has no server beyond its DUT to tunnel to (ends: through)",
            hint="use ends: dut to tunnel to the DUT, or a bridge, router or nat path",
        )
    return Placement(Role.CLIENT, Role.SERVER, plan.server_address, FAR_ADDRESS, ())


def _dut_wan() -> str:
    return f"{WAN_PREFIX}.1"


def tools_for(spec: TunnelSpec) -> list[str]:
    if spec.kind is TunnelKind.OPENVPN:
        return ["openvpn", "openssl"]
    return ["wireguard-go", "wg"]


def device_name(kind: TunnelKind, namespace: str) -> str:
    """The tunnel device's name in one namespace: unique on the machine (wireguard-go's
    sockets share one directory) and known without a record (remove_files finds them)."""
    digest = hashlib.sha256(namespace.encode()).hexdigest()[:8]
    return f"ws{'o' if kind is TunnelKind.OPENVPN else 'w'}{digest}"


def lab_directory(lab: str) -> Path:
    return Path(TUNNEL_DIR) / lab


def remove_files(lab: str) -> None:
    """The key directory and the WireGuard sockets of a lab's tunnels. Call after the
    lab's processes are gone (a live wireguard-go would recreate nothing, but its socket
    would vanish under it)."""
    shutil.rmtree(lab_directory(lab), ignore_errors=True)
    for node in ALL_NODES:
        dev = device_name(TunnelKind.WIREGUARD, namespace_name(lab, node))
        with contextlib.suppress(FileNotFoundError):
            wireguard.socket_path(dev).unlink()


@dataclass
class _Daemon:
    node: Node
    namespace: str
    dev: str
    process: subprocess.Popen[bytes]
    log_path: Path
    log: IO[bytes]

    def text(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""


@dataclass
class LabTunnel:
    """A tunnel being built or up; lab_tunnel makes one and always takes it down."""

    lab_name: str
    namespaces: dict[Node, str]
    spec: TunnelSpec
    placement: Placement
    link_mtu: int
    directory: Path = field(init=False)
    daemons: list[_Daemon] = field(default_factory=list)
    kernel_wireguard: list[Node] = field(default_factory=list)  # ends on the kernel's module
    routes: list[list[str]] = field(default_factory=list)  # `ip route del` argv to undo

    def __post_init__(self) -> None:
        self.directory = lab_directory(self.lab_name)

    @property
    def target(self) -> str:
        return self.placement.target

    @property
    def inner_mtu(self) -> int:
        return tunnels.inner_mtu(self.spec)

    # -- up --------------------------------------------------------------------------

    def up(self) -> None:
        system.require_tools(["ip", *tools_for(self.spec)])
        shutil.rmtree(self.directory, ignore_errors=True)  # a previous trial's, if killed
        self.directory.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.directory.mkdir(mode=0o700)
        os.chmod(self.directory, 0o700)  # whatever the umask
        if self.spec.kind is TunnelKind.OPENVPN:
            self._openvpn_up()
        else:
            self._wireguard_up()
        for node, destination, via in self.placement.return_routes:
            namespace = self.namespaces[node]
            system.run(["ip", "-n", namespace, "route", "add", destination, "via", via])
            self.routes.append(["ip", "-n", namespace, "route", "del", destination, "via", via])
        self._prove()

    def _start(self, node: Node, dev: str, argv: list[str]) -> _Daemon:
        namespace = self.namespaces[node]
        log_path = self.directory / f"{node.value}.log"
        log = open(log_path, "wb")  # noqa: SIM115 (kept open for the daemon's life)
        try:
            process = subprocess.Popen(
                ["ip", "netns", "exec", namespace, *argv],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                # Its own session: Ctrl-C reaches wirespeed, which stops it in order.
                start_new_session=True,
            )
        except FileNotFoundError:
            log.close()
            raise MissingToolError(argv[0]) from None
        daemon = _Daemon(node, namespace, dev, process, log_path, log)
        self.daemons.append(daemon)
        return daemon

    def _openvpn_up(self) -> None:
        near, far = self.placement.near, self.placement.far
        identities = {}
        for node in (near, far):
            argv, cert, key = openvpn.identity_argv(self.directory, node.value)
            system.run(argv)
            os.chmod(key, 0o600)
            fingerprint = openvpn.parse_fingerprint(system.run(openvpn.fingerprint_argv(cert)))
            identities[node] = (cert, key, fingerprint)

        def end(node: Node, other: Node, local: str, peer: str) -> openvpn.OpenVpnEnd:
            # The far end listens; the near one connects to the far end's outer address.
            cert, key, _ = identities[node]
            server = node == far
            return openvpn.OpenVpnEnd(
                dev=self._dev(node),
                local=local,
                peer=peer,
                cert=cert,
                key=key,
                peer_fingerprint=identities[other][2],
                server=server,
                remote=None if server else self.placement.far_outer,
            )

        ends = {
            far: end(far, near, FAR_ADDRESS, NEAR_ADDRESS),
            near: end(near, far, NEAR_ADDRESS, FAR_ADDRESS),
        }
        deadline = time.monotonic() + READY_SECONDS
        # The connecting end only once the other listens: a first handshake packet that
        # finds no one is retried seconds later, not at once.
        listener = self._start(far, ends[far].dev, openvpn.end_argv(self.spec, ends[far]))
        self._wait(listener, deadline, lambda text: openvpn.parse_log(text).listening)
        connector = self._start(near, ends[near].dev, openvpn.end_argv(self.spec, ends[near]))
        for daemon in (listener, connector):
            self._wait(daemon, deadline, lambda text: openvpn.parse_log(text).ready)
        self._route_into(near)

    def _wireguard_up(self) -> None:
        near, far = self.placement.near, self.placement.far
        public: dict[Node, str] = {}
        private: dict[Node, Path] = {}
        for node in (near, far):
            path = self.directory / f"{node.value}.key"
            secret = system.run(wireguard.keygen_argv())
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(descriptor, "w") as file:
                file.write(secret)
            public[node] = system.run(wireguard.pubkey_argv(), stdin=secret).strip()
            private[node] = path
        ends = {
            far: wireguard.WireGuardEnd(
                dev=self._dev(far),
                private_key=private[far],
                peer_public_key=public[near],
                allowed_ips=(f"{NEAR_ADDRESS}/32",),
                listen=True,
            ),
            near: wireguard.WireGuardEnd(
                dev=self._dev(near),
                private_key=private[near],
                peer_public_key=public[far],
                allowed_ips=(TUNNEL_SUBNET, *self.placement.routed),
                listen=False,
                endpoint=self.placement.far_outer,
            ),
        }
        deadline = time.monotonic() + READY_SECONDS
        for node in (far, near):
            dev = self._dev(node)
            namespace = self.namespaces[node]
            # The kernel's module where there is one (what a device runs); this lab's
            # kernel has none ("Unknown device type"): then wireguard-go.
            kernel = subprocess.run(
                ["ip", "netns", "exec", namespace, *wireguard.kernel_argv(dev)],
                capture_output=True,
                check=False,
            )
            if kernel.returncode == 0:
                self.kernel_wireguard.append(node)
            else:
                with contextlib.suppress(FileNotFoundError):
                    wireguard.socket_path(dev).unlink()  # left by a daemon killed earlier
                daemon = self._start(node, dev, wireguard.userspace_argv(dev))
                # wireguard-go serves its configuration on the socket once it is up.
                self._wait(daemon, deadline, functools.partial(_exists, wireguard.socket_path(dev)))
            address = FAR_ADDRESS if node == far else NEAR_ADDRESS
            system.run(["ip", "netns", "exec", namespace, *wireguard.set_argv(ends[node])])
            system.run(["ip", "-n", namespace, "address", "add", f"{address}/24", "dev", dev])
            mtu = str(self.inner_mtu)
            system.run(["ip", "-n", namespace, "link", "set", dev, "mtu", mtu, "up"])
        self._route_into(near)

    def _route_into(self, near: Node) -> None:
        """What the client reaches through the tunnel beyond its far end's address."""
        for routed in self.placement.routed:
            dev = self._dev(near)
            system.run(["ip", "-n", self.namespaces[near], "route", "add", routed, "dev", dev])

    def _dev(self, node: Node) -> str:
        return device_name(self.spec.kind, self.namespaces[node])

    def _wait(self, daemon: _Daemon, deadline: float, ready: Callable[[str], bool]) -> None:
        while not ready(daemon.text()):
            if daemon.process.poll() is not None:
                raise LabError(
                    f"{self.spec.kind.value} in {daemon.namespace} exited "
                    f"(status {daemon.process.returncode}): {_last_words(daemon.text())}"
                )
            if time.monotonic() > deadline:
                raise LabError(
                    f"{self.spec.kind.value} in {daemon.namespace} was not up after "
                    f"{READY_SECONDS:.0f} s: {_last_words(daemon.text())}"
                )
            time.sleep(0.05)

    def _prove(self) -> None:
        """One ping from the client to the far end's tunnel address: keys, routes and
        handshake all work before a test relies on them."""
        namespace = self.namespaces[self.placement.near]
        deadline = time.monotonic() + READY_SECONDS
        while True:
            argv = ["ip", "netns", "exec", namespace, "ping", "-c", "1", "-W", "1", FAR_ADDRESS]
            if subprocess.run(argv, capture_output=True, check=False).returncode == 0:
                return
            if time.monotonic() > deadline:
                raise LabError(
                    f"no ping through the {self.spec.kind.value} tunnel to {FAR_ADDRESS} "
                    f"in {READY_SECONDS:.0f} s"
                )

    # -- down ------------------------------------------------------------------------

    def down(self) -> None:
        """Stop both daemons (SIGTERM, then SIGKILL), undo the routes, remove the sockets
        and keys. Idempotent; never raises for what is already gone."""
        for node in self.kernel_wireguard:
            dev = self._dev(node)
            with contextlib.suppress(LabError):
                system.run(["ip", "-n", self.namespaces[node], "link", "del", dev], check=False)
        self.kernel_wireguard.clear()
        for argv in self.routes:
            with contextlib.suppress(LabError):
                system.run(argv, check=False)
        self.routes.clear()
        for daemon in self.daemons:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(daemon.process.pid, signal.SIGTERM)
        deadline = time.monotonic() + STOP_SECONDS
        for daemon in self.daemons:
            try:
                daemon.process.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(daemon.process.pid, signal.SIGKILL)
                daemon.process.wait()
            daemon.log.close()
            if self.spec.kind is TunnelKind.WIREGUARD:
                with contextlib.suppress(FileNotFoundError):
                    wireguard.socket_path(daemon.dev).unlink()
        shutil.rmtree(self.directory, ignore_errors=True)

    # -- what the report says --------------------------------------------------------

    def daemons_by_pid(self) -> dict[int, str]:
        """pid -> what it is, "openvpn on the DUT": `ip netns exec` execs the daemon, so
        the pid started is the daemon's."""
        far = "DUT" if self.placement.far == Role.DUT else "server"
        program = "openvpn" if self.spec.kind is TunnelKind.OPENVPN else "wireguard-go"
        return {
            daemon.process.pid: (
                f"{program} on the {'client' if daemon.node == self.placement.near else far}"
            )
            for daemon in self.daemons
        }

    def logs(self) -> dict[Node, str]:
        return {daemon.node: daemon.text() for daemon in self.daemons}

    def findings(self) -> list[Finding]:
        """The tunnel's MTUs and per-packet cost, and how its packets were encrypted
        (OpenVPN: with the kernel's data channel offload, or in userspace)."""
        far = "DUT" if self.placement.far == Role.DUT else "server"
        found = [Finding(FindingKind.TUNNEL, self._mtu_text(far))]
        if self.spec.kind is TunnelKind.WIREGUARD:
            text = (
                "WireGuard ran in the kernel (its wireguard module) at both ends"
                if self.kernel_wireguard
                else "WireGuard ran in userspace (wireguard-go) at both ends: the lab's "
                "kernel has no wireguard module"
            )
            found.append(Finding(FindingKind.TUNNEL, text))
            return found
        where = {node: "client" if node == self.placement.near else far for node in self.logs()}
        found += openvpn_findings({where[node]: text for node, text in self.logs().items()})
        return found

    def _mtu_text(self, far: str) -> str:
        return describe_mtus(self.spec, self.link_mtu, far)


def describe_mtus(spec: TunnelSpec, link_mtu: int, far: str) -> str:
    """'WireGuard tunnel client to DUT: inner MTU 1420, outer link MTU 1500; each packet
    gains 60 bytes (...)': what the tunnel costs each packet, and whether full ones split."""
    kind = "OpenVPN" if spec.kind is TunnelKind.OPENVPN else "WireGuard"
    outer_l4 = tunnels.outer_headers(spec) - tunnels.OUTER_IPV4
    inner = tunnels.encapsulation(spec)
    total = tunnels.outer_headers(spec) + inner
    inner_mtu = tunnels.inner_mtu(spec)
    parts = f"outer IPv4 20, {spec.proto.value.upper()} {outer_l4}, {kind} {inner}"
    text = (
        f"{kind} tunnel client to {far}: inner MTU {inner_mtu}, outer link MTU "
        f"{link_mtu}; each packet gains {total} bytes ({parts})"
    )
    if inner_mtu + total > link_mtu:
        text += "; a full inner packet leaves as IP fragments"
    if spec.kind is TunnelKind.OPENVPN and (clamp := openvpn.mssfix(spec)):
        text += f"; TCP inside is clamped to outer packets of {clamp} bytes"
    return text


def openvpn_findings(logs: Mapping[str, str]) -> list[Finding]:
    """How each OpenVPN end moved its packets, from its log (where -> text): with the
    kernel's data channel offload, or through userspace."""
    found: list[Finding] = []
    for where, text in logs.items():
        log = openvpn.parse_log(text)
        if log.dco is False:
            found.append(
                Finding(
                    FindingKind.TUNNEL,
                    f"OpenVPN on the {where} moved every packet through userspace, "
                    f"without data channel offload: {log.dco_note}",
                )
            )
        elif log.dco:
            found.append(
                Finding(FindingKind.TUNNEL, f"OpenVPN on the {where} used data channel offload")
            )
    return found


def _exists(path: Path, _log: str) -> bool:
    return path.exists()


def _last_words(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return " / ".join(lines[-3:]) if lines else "no output"


class BuiltLab(Protocol):
    """What a tunnel needs of the built lab it crosses (lab/lab.py's Lab), named here so
    that the lab, which removes its tunnels' leftovers, and the tunnel import one way."""

    @property
    def name(self) -> str: ...

    @property
    def namespaces(self) -> Mapping[Node, str]: ...

    @property
    def plan(self) -> TopologyPlan: ...

    @property
    def mtu(self) -> int: ...


@contextlib.contextmanager
def lab_tunnel(lab: BuiltLab, spec: TunnelSpec) -> Iterator[LabTunnel]:
    """The tunnel up across the lab for the block; down after it whatever happens."""
    tunnel = LabTunnel(
        lab_name=lab.name,
        namespaces=dict(lab.namespaces),
        spec=spec,
        placement=placement_for(lab.plan, spec),
        link_mtu=lab.mtu,
    )
    try:
        tunnel.up()
        yield tunnel
    finally:
        tunnel.down()
