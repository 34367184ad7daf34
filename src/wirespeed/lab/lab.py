"""The emulated lab: build, use, retune and tear down a topology of namespaces.

    spec = LabSpec(Topology.BRIDGE, parse_link("gbe"))         # name defaults to "bridge"
    with Lab.up(spec) as lab:                                   # root; tears down on exit
        server = lab.hosts[Role.SERVER]                         # a NetnsHost
        client = lab.hosts[Role.CLIENT]
        client.run(["iperf3", "-c", lab.server_address, ...])
        lab.set_mtu(9000)                                       # every link, shapers too

    attach("bridge") -> Lab | None      # the handle of a lab another process built
    lab_status() -> list[LabInfo]       # every wirespeed lab on this machine
    down_lab("bridge") -> bool          # tear down one lab by name (not a live run's)
    down_all() -> Removal               # tear down every wirespeed lab but live runs'

Lab.up(spec) -> Lab checks root (NotRootError) and tools (MissingToolError), claims the
name (lab/claim.py: a lab of the same name that a live process owns is never touched;
Lab.up refuses with LabInUseError, or with rename=True takes name-2, name-3 ...), removes
a stale lab of that name (its processes first), builds the topology (lab/topology.py,
lab/build.py), shapes the links (lab/shaping.py), records the spec under /run
(lab/record.py) and proves it carries traffic with one TCP connection from client to
server (lab/probe.py); through NAT the server must see the DUT's WAN address.

Lab attributes: name, spec, plan (TopologyPlan), hosts (Mapping[Role, NetnsHost]; in
the endpoint topology SERVER is the DUT's namespace), namespaces (node -> namespace
name, for every node: the roles' and the endpoint topology's switch, which is no
role and has no host), server_address (what the client connects to), client_address,
addresses (node -> {interface: address}), mtu (the links' MTU now), wan_address (the
DUT's WAN address: what the outside reaches a router or NAT at, and an endpoint DUT's
own; None in bridge, whose DUT has its address on br0) and port_forward (nat: the
(first, last) ports that the DUT forwards from its WAN address to the client, UDP and
TCP, so the server side can start traffic inwards; None otherwise).

With LabSpec(limit=ForwardingLimit(pps=15000)) the DUT forwards at most that, both
directions together (lab/limits.py says what is counted and what a test sees); a
bridge, router or nat lab only.

With LabSpec(dut_access="ssh") the DUT is also a real SSH device (lab/ssh_dut.py):
dropbear and busybox in its namespace, reached through a management namespace.
device_hosts maps each role to the Host a run drives: the DUT's (and in endpoint the
server's) is then an SshHost, the others stay NetnsHosts.

Teardown (Lab.down, down_lab, down_all) kills every process inside the lab's
namespaces and deletes them, which removes their veths, bridge, qdiscs and nftables
with them; it is idempotent, and a lab left by a crash is removed the same way. Lab.down
removes only the lab this handle built: once its record names another owner (after a
`lab down --force`, someone else's lab of the same name) it leaves it alone.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import TYPE_CHECKING

from wirespeed.errors import HostError, LabError, UsageError
from wirespeed.hosts.base import Host
from wirespeed.hosts.netns import NetnsHost, namespace_exists
from wirespeed.lab import record, ssh_dut, system, tunnel
from wirespeed.lab.build import PORT_FORWARD, Command, Step, build_steps, mtu_steps
from wirespeed.lab.claim import LabInUseError, candidate_names, first_free, held_by_other
from wirespeed.lab.limits import check_forwards
from wirespeed.lab.naming import check_lab_name, namespace_name, parse_namespace
from wirespeed.lab.probe import source_seen_by_server
from wirespeed.lab.status import parse_ip_addr_json
from wirespeed.lab.topology import ALL_NODES, Infra, Node, TopologyPlan, plan_for
from wirespeed.model import ForwardingLimit, LinkModel, Role, Topology

if TYPE_CHECKING:
    from wirespeed.hosts.ssh import SshHost

DUT_ACCESS = ("netns", "ssh")


@dataclass(frozen=True)
class LabSpec:
    topology: Topology
    link: LinkModel
    name: str | None = None  # None: the topology's name
    dut_access: str = "netns"  # "ssh": the DUT is a dropbear + busybox device
    limit: ForwardingLimit | None = None  # the most the DUT forwards (lab/limits.py)

    @property
    def lab_name(self) -> str:
        return self.name if self.name is not None else self.topology.value


@dataclass(frozen=True)
class LabInfo:
    """What `lab status` shows of one lab found on this machine."""

    name: str
    namespaces: tuple[str, ...]
    topology: Topology | None  # None: no readable record (built by another version?)
    link: LinkModel | None
    mtu: int | None
    # namespace -> interface -> addresses ("198.18.1.2/24"), as the kernel has them now
    addresses: Mapping[str, Mapping[str, tuple[str, ...]]] = field(default_factory=dict)
    dut_access: str | None = None  # "netns" or "ssh"; None: no readable record
    owner: str | None = None  # the run that built it and will remove it (record.owner)
    limit: ForwardingLimit | None = None  # the DUT's forwarding limit, if it has one

    @property
    def complete(self) -> bool:
        """All namespaces its topology needs exist, and its record was readable."""
        if self.topology is None:
            return False
        nodes = plan_for(self.topology).nodes
        return {namespace_name(self.name, node) for node in nodes} <= set(self.namespaces)


def _tools_for(spec: LabSpec) -> list[str]:
    tools = ["ip"]
    if spec.link.rate_bps is not None:
        tools += ["tc", "ethtool"]
    if spec.topology is Topology.NAT:
        tools.append("nft")
    if spec.limit is not None:
        tools += ["tc", "ethtool"]  # the DUT's ring and budget (lab/limits.py)
    return list(dict.fromkeys(tools))


class Lab:
    """A built lab; make one with Lab.up(spec) or attach(name)."""

    def __init__(self, spec: LabSpec, mtu: int) -> None:
        self.spec = spec
        self.name = check_lab_name(spec.lab_name)
        self.plan: TopologyPlan = plan_for(spec.topology)
        self.mtu = mtu
        self.namespaces: Mapping[Node, str] = {
            node: namespace_name(self.name, node) for node in self.plan.nodes
        }
        self.hosts: Mapping[Role, NetnsHost] = {
            role: NetnsHost(self.namespaces[node]) for role, node in self.plan.role_nodes().items()
        }
        self.server_address = self.plan.server_address
        addresses: dict[Node, dict[str, str]] = {node: {} for node in self.plan.nodes}
        for address in self.plan.addresses:
            addresses[address.port.node][address.port.interface] = address.ip
        self.addresses: Mapping[Node, Mapping[str, str]] = addresses
        client_address = self.plan.address_of(Role.CLIENT, "eth0")
        assert client_address is not None
        self.client_address = client_address
        if spec.dut_access not in DUT_ACCESS:
            raise UsageError(f"dut access must be netns or ssh, got {spec.dut_access!r}")
        if spec.limit is not None:
            check_forwards(spec.topology)  # UsageError where the DUT forwards nothing
        self.wan_address = self.plan.address_of(Role.DUT, "wan")
        self.port_forward: tuple[int, int] | None = (
            PORT_FORWARD if spec.topology is Topology.NAT else None
        )
        self.ssh_device: ssh_dut.SshDevice | None = None
        if spec.dut_access == "ssh":
            self.ssh_device = ssh_dut.device_for(self.name, namespace_name(self.name, Infra.MGMT))
        self._ssh_host: SshHost | None = None
        self.owner: str | None = None
        # Names Lab.up(rename=True) passed over because live processes held them, with
        # their owners: what a run tells its user about the name it got instead.
        self.passed_over: tuple[tuple[str, str], ...] = ()

    @property
    def dut_namespace(self) -> str:
        return self.namespaces[self.plan.role_nodes()[Role.DUT]]

    @property
    def ssh_host(self) -> SshHost | None:
        """The DUT as an SSH device (connected on first use), or None without one."""
        if self.ssh_device is None:
            return None
        if self._ssh_host is None:
            # Named as the namespace: the tune journal finds the same knobs either way.
            self._ssh_host = ssh_dut.host_for(self.ssh_device, name=self.dut_namespace)
        return self._ssh_host

    @property
    def device_hosts(self) -> Mapping[Role, Host]:
        """The Host a run drives for each role: over SSH for whatever runs on the DUT."""
        ssh = self.ssh_host
        if ssh is None:
            return self.hosts
        dut_node = self.plan.role_nodes()[Role.DUT]
        return {
            role: ssh if node == dut_node else self.hosts[role]
            for role, node in self.plan.role_nodes().items()
        }

    def __repr__(self) -> str:
        return f"Lab({self.name!r}, {self.spec.topology.value}, {self.spec.link.name})"

    @classmethod
    def up(cls, spec: LabSpec, *, owned: bool = False, rename: bool = False) -> Lab:
        """Build the lab. owned: it belongs to this process (a run), and a later run
        removes it if this process dies without doing so (down_orphans); otherwise it is
        the user's (`lab up`), recorded without owner once built. A name a live process
        holds is refused (LabInUseError), or with rename the first free of name-2,
        name-3 ... is taken (lab.name, lab.passed_over say which and why)."""
        system.require_root("building a lab")
        system.require_tools(_tools_for(spec))
        if spec.dut_access == "ssh":
            ssh_dut.require_tools()
        cls(spec, spec.link.mtu)  # a bad name is a usage error before anything is locked
        lab = cls._claim(spec, rename=rename)
        try:
            cpu_count = os.cpu_count() or 1
            lab._execute(build_steps(lab.plan, lab.name, spec.link, cpu_count, spec.limit))
            with record.lock():
                lab.check_still_ours()
                if not owned:
                    lab.owner = None  # built: from now on only `lab down` removes it
                lab._save()
            lab._verify()
            if lab.ssh_device is not None:
                lab._start_ssh_device(lab.ssh_device)
        except BaseException:
            lab.down()
            raise
        return lab

    @classmethod
    def _claim(cls, spec: LabSpec, *, rename: bool) -> Lab:
        """Under the labs' lock: take the first name no live process holds, remove a
        stale lab of that name and record this process as its owner, all before the
        first namespace exists (a run killed while building leaves a lab the next run
        can tell is an orphan, and another run starting now sees the name taken)."""
        me = record.process_identity()
        with record.lock():
            name, passed = first_free(candidate_names(spec.lab_name, rename=rename), _owner_of, me)
            if name is None:
                taken, owner = passed[-1]
                raise LabInUseError(taken, owner)
            lab = cls(dataclasses.replace(spec, name=name), spec.link.mtu)
            lab.owner = me
            lab.passed_over = tuple(passed)
            _remove(name)  # a stale lab of that name, and whatever runs in it
            lab._save()
        return lab

    def __enter__(self) -> Lab:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.down()

    def set_mtu(self, mtu: int) -> None:
        """Set the MTU of every lab link (both veth ends and the bridges, the switch's
        too) and retune the shapers for it."""
        if not 68 <= mtu <= 65535:
            raise UsageError(f"mtu must be 68..65535, got {mtu}")
        self.check_still_ours()
        self._execute(mtu_steps(self.plan, self.name, self.spec.link, mtu, self.spec.limit))
        self.mtu = mtu
        with record.lock():
            self.check_still_ours()  # never write over another owner's record
            self._save()

    def still_ours(self) -> bool:
        """The lab's record still names this handle's owner: nobody removed it (`lab down
        --force`) and nobody built another lab under its name since."""
        lab_record = record.load(self.name)
        return lab_record is not None and lab_record.owner == self.owner

    def check_still_ours(self) -> None:
        if not self.still_ours():
            raise LabError(
                f"lab {self.name} was removed, or taken over by another process, while "
                "this one used it: nothing measured in it now would be this run's"
            )

    def down(self) -> bool:
        """Kill everything inside the lab's namespaces and delete them. Idempotent. A lab
        whose record names another owner now is someone else's and stays: False."""
        if self._ssh_host is not None:
            # Stop what runs on the device through its own SSH session first, as on a
            # real device; the namespaces' teardown below would kill it anyway.
            with contextlib.suppress(HostError, OSError, TimeoutError):
                self._ssh_host.close()
            self._ssh_host = None
        with record.lock():
            lab_record = record.load(self.name)
            if lab_record is not None and lab_record.owner != self.owner:
                return False
            # No record: nobody claimed the name since (a claim records first, under this
            # lock), so whatever is left of the namespaces is this lab's.
            _remove(self.name)
        return True

    def _start_ssh_device(self, device: ssh_dut.SshDevice) -> None:
        for argv in ssh_dut.management_commands(self.dut_namespace, device.mgmt_namespace):
            system.run(argv)
        ssh_dut.prepare_files(device)
        ssh_dut.start_server(device, self.dut_namespace)
        host = self.ssh_host
        assert host is not None
        try:
            host.connect()
        except HostError as error:
            raise LabError(f"lab {self.name}: cannot log in to its SSH DUT: {error}") from None

    def _execute(self, steps: list[Step]) -> None:
        for step in steps:
            if isinstance(step, Command):
                system.run(step.argv, stdin=step.stdin)
                continue
            host = NetnsHost(self.namespaces[step.node])
            try:
                host.write_file(step.path, step.text)
            except (HostError, OSError) as error:
                raise LabError(f"cannot write {step.path} in {host.name}: {error}") from None

    def _save(self) -> None:
        record.save(
            record.LabRecord(
                self.name,
                self.spec.topology,
                self.spec.link,
                self.mtu,
                self.spec.dut_access,
                self.owner,
                self.spec.limit,
            )
        )

    def _verify(self) -> None:
        client = self.namespaces[Role.CLIENT]
        server = self.namespaces[self.plan.server_node]
        seen = source_seen_by_server(client, server, self.server_address)
        masquerade = self.plan.masquerade
        if masquerade is not None:
            expected = self.plan.address_of(masquerade.node, masquerade.interface)
        else:
            expected = self.client_address
        if seen != expected:
            raise LabError(
                f"lab {self.name}: the server saw the client as {seen}, expected {expected}"
            )


def _lab_namespaces() -> dict[str, list[str]]:
    labs: dict[str, list[str]] = {}
    for namespace in system.project_namespaces():
        parsed = parse_namespace(namespace)
        if parsed is not None:
            labs.setdefault(parsed[0], []).append(namespace)
    return labs


@dataclass(frozen=True)
class Removal:
    """What down_all did: the labs removed, and those kept with their live owners."""

    removed: tuple[str, ...]
    kept: tuple[tuple[str, str], ...]  # (name, owner "PID:STARTTIME")


def _owner_of(name: str) -> str | None:
    lab_record = record.load(name)
    return None if lab_record is None else lab_record.owner


def down_lab(name: str, *, force: bool = False) -> bool:
    """Tear down the lab called name (all its namespaces and its record); False if
    there was nothing to remove. A lab a live process owns (a run using it) raises
    LabInUseError, unless force."""
    system.require_root("removing a lab")
    with record.lock():
        owner = _owner_of(name)
        if owner is not None and not force and held_by_other(owner, record.process_identity()):
            raise LabInUseError(
                name,
                owner,
                hint=f"`wirespeed lab down --force {name}` removes it anyway, and that "
                "run's next trials fail",
            )
        return _remove(name)


def _remove(name: str) -> bool:
    """Remove the lab's namespaces, record and files, whoever owns it; the caller holds
    the labs' lock and has decided it may."""
    removed = False
    errors: list[str] = []
    for node in ALL_NODES:  # whichever topology it was: its record may be gone
        try:
            removed |= system.delete_namespace(namespace_name(name, node))
        except LabError as error:
            errors.append(error.message)  # go on: remove what can be removed
    had_record = os.path.exists(record.record_path(name))
    record.remove(name)
    ssh_dut.remove_files(name)
    tunnel.remove_files(name)  # keys and sockets of a tunnel whose daemons died with it
    if errors:
        raise LabError("; ".join(errors))
    return removed or had_record


def down_all(*, force: bool = False) -> Removal:
    """Tear down every wirespeed lab on this machine but those live processes own
    (unless force): which were removed, which kept."""
    system.require_root("tearing down labs")
    me = record.process_identity()
    removed: list[str] = []
    kept: list[tuple[str, str]] = []
    with record.lock():
        names = set(_lab_namespaces()) | set(record.names())
        for name in sorted(names):
            owner = _owner_of(name)
            if owner is not None and not force and held_by_other(owner, me):
                kept.append((name, owner))
            elif _remove(name):
                removed.append(name)
    return Removal(tuple(removed), tuple(kept))


def down_orphans() -> list[str]:
    """Remove the labs whose owning run died without removing them (SIGKILL, power):
    the names removed. Labs built by hand, and those of runs still going, stay."""
    removed = []
    with record.lock():  # the owner is judged dead and its lab removed in one step
        for name in record.names():
            owner = _owner_of(name)
            if owner is not None and not record.owner_alive(owner):
                _remove(name)
                removed.append(name)
    return removed


def attach(name: str) -> Lab | None:
    """The handle of an existing lab (built by another process), or None if there is no
    complete lab of that name."""
    lab_record = record.load(name)
    if lab_record is None:
        return None
    spec = LabSpec(
        lab_record.topology, lab_record.link, name, lab_record.dut_access, lab_record.limit
    )
    lab = Lab(spec, lab_record.mtu)
    lab.owner = lab_record.owner
    if not all(namespace_exists(ns) for ns in lab.namespaces.values()):
        return None
    if lab.ssh_device is not None and not namespace_exists(lab.ssh_device.mgmt_namespace):
        return None
    return lab


def lab_status() -> list[LabInfo]:
    """Every wirespeed lab found on this machine, with its spec and live addresses."""
    infos = []
    for name, namespaces in sorted(_lab_namespaces().items()):
        lab_record = record.load(name)
        addresses: dict[str, Mapping[str, tuple[str, ...]]] = {}
        for namespace in namespaces:
            output = system.run(["ip", "-j", "-n", namespace, "addr", "show"], check=False)
            addresses[namespace] = parse_ip_addr_json(output)
        infos.append(
            LabInfo(
                name=name,
                namespaces=tuple(namespaces),
                topology=lab_record.topology if lab_record else None,
                link=lab_record.link if lab_record else None,
                mtu=lab_record.mtu if lab_record else None,
                addresses=addresses,
                dut_access=lab_record.dut_access if lab_record else None,
                owner=lab_record.owner if lab_record else None,
                limit=lab_record.limit if lab_record else None,
            )
        )
    return infos
