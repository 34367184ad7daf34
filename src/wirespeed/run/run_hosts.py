"""The hosts and labs of a run: the labs it builds, the SSH devices it logs in to, this
machine's ports in namespaces, and what it asks of them before measuring (their tools,
the CPUs and links its variants set, the facts of provenance).

Set up by the runner around its loop of trials (devices_connected, labs_up), and torn
down by the same context managers at the end, also on Ctrl-C, SIGTERM or an error.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

from wirespeed.errors import MissingToolError, WirespeedError
from wirespeed.hosts.base import Host
from wirespeed.model import PathSpec, Role, Topology, Trial
from wirespeed.run.paths import (
    LabKey,
    cpu_device,
    is_lab_path,
    lab_key,
    lab_name,
    more_senders,
    named_generator,
    search_senders,
    tunnel_ends,
)
from wirespeed.run.trial import program_for
from wirespeed.signals import deferred_signals

if TYPE_CHECKING:
    from wirespeed.hosts.ssh import SshHost
    from wirespeed.hosts.ssh_connection import SshSettings
    from wirespeed.lab.lab import Lab
    from wirespeed.model import BenchSpec
    from wirespeed.plan import Plan
    from wirespeed.run.link_variants import LinkTarget
    from wirespeed.tools.bench import BenchDriver


def _teardown(lab: Lab) -> None:
    with deferred_signals():
        lab.down()


def _passed_over_notice(lab: Lab) -> str:
    from wirespeed.lab.record import describe_owner

    taken = "; ".join(
        f"lab {name} is in use by {describe_owner(owner)}" for name, owner in lab.passed_over
    )
    return f"{taken}: this run builds its own, lab {lab.name}"


class RunHosts:
    """Lab paths get one lab per topology and DUT limit (lab_key), named after the
    topology and limit (`nat`, `nat-15kpps`; or `<lab_prefix>-nat...` so that two runs,
    or a run and a test, can use labs side by side). A lab another live run uses is never
    touched: a default name it holds gives way to topology-2, -3 ... (said through
    notice), a lab_prefix'd one is refused (LabInUseError)."""

    def __init__(
        self,
        plan: Plan,
        *,
        lab_prefix: str | None = None,
        lab_dut: str = "netns",
        ssh_settings: SshSettings | None = None,
        notice: Callable[[str], None] = lambda message: None,
    ) -> None:
        self.plan = plan
        self.lab_prefix = lab_prefix
        self.lab_dut = lab_dut  # "ssh": each lab's DUT is a dropbear device
        self.ssh_settings = ssh_settings
        self.notice = notice
        self.labs: dict[LabKey, Lab] = {}
        self.local_hosts: dict[str, Host] = {}
        self.ssh_hosts: dict[str, SshHost] = {}
        self.port_hosts: Mapping[str, Host] = {}  # ports of this machine, in namespaces

    def lab_of(self, path: PathSpec) -> Lab | None:
        """The path's lab; None on real hosts."""
        return self.labs.get(lab_key(path)) if self.is_lab_path(path) else None

    def device_host(self, path: PathSpec) -> Host:
        if self.is_lab_path(path):
            return self.labs[lab_key(path)].device_hosts[Role.DUT]
        assert path.dut is not None
        return self.host(path.dut)

    def is_lab_path(self, path: PathSpec) -> bool:
        return is_lab_path(self.plan, path)

    def host(self, name: str) -> Host:
        """A plan's host: over SSH if it has an ssh target, a port's namespace, else this
        machine."""
        if name in self.ssh_hosts:
            return self.ssh_hosts[name]
        if name in self.port_hosts:
            return self.port_hosts[name]
        return self.local(name)

    @contextlib.contextmanager
    def devices_connected(
        self, trials: Sequence[Trial], settings: SshSettings | None = None
    ) -> Iterator[None]:
        """Log in to every SSH host the trials use and check its tools, before anything
        is measured; close the sessions (stopping what still runs there) at the end."""
        from wirespeed.hosts.ssh import SshHost
        from wirespeed.model import TunnelKind
        from wirespeed.run.bench_trial import find_program
        from wirespeed.run.host_tunnel import missing_wireguard, tools_on_host
        from wirespeed.tools.bench import benchmark_of

        needs: dict[str, set[str]] = {}
        wireguard_ends: set[str] = set()  # hosts with a WireGuard end: module or -go
        benches: dict[str, dict[tuple[str, str], tuple[BenchDriver, BenchSpec]]] = {}
        for trial in trials:
            path = trial.path
            if self.is_lab_path(path):
                continue
            benchmark = benchmark_of(trial.test)
            if benchmark is not None:
                if path.dut is not None and self.plan.hosts[path.dut].ssh is not None:
                    needs.setdefault(path.dut, set())
                    directory = str(benchmark[1].option("directory"))
                    benches.setdefault(path.dut, {})[(str(trial.test.tool), directory)] = benchmark
                continue
            program = program_for(trial.test.tool)
            for name in (path.client, path.server, path.dut):
                if name is not None and self.plan.hosts[name].ssh is not None:
                    tools = needs.setdefault(name, set())
                    if name in (path.client, path.server):
                        tools.add(program)
            if path.tunnel is not None:
                for name in tunnel_ends(path):
                    if self.plan.hosts[name].ssh is not None:
                        needs[name].update(tools_on_host(path.tunnel.kind))
                        if path.tunnel.kind is TunnelKind.WIREGUARD:
                            wireguard_ends.add(name)
            if trial.test.search is not None:
                # A search's senders are logged in to like its client, and need what it
                # does; tcpreplay, asked for by name, is refused up front too (exit 3).
                replayed = named_generator(trial) == "tcpreplay"
                for name in search_senders(trial):
                    if self.plan.hosts[name].ssh is not None:
                        tools = needs.setdefault(name, set())
                        tools.add("tcpreplay" if replayed else program)
        try:
            for name, tools in needs.items():
                ssh = self.plan.hosts[name].ssh
                assert ssh is not None
                host = SshHost(ssh, settings or self.ssh_settings, name=name)
                self.ssh_hosts[name] = host
                host.connect()
                for program in sorted(tools):
                    if host.which(program) is None:
                        raise MissingToolError(program, f"{name} ({host.destination})")
                if name in wireguard_ends:
                    missing = missing_wireguard(host, f"{name} ({host.destination})")
                    if missing is not None:
                        raise missing
                for driver, bench in benches.get(name, {}).values():
                    try:
                        find_program(host, driver, bench.as_dict())
                    except MissingToolError as error:
                        raise MissingToolError(
                            " or ".join(driver.PROGRAMS),
                            f"{name} ({host.destination})",
                            driver.PACKAGES,
                        ) from error
            yield
        finally:
            with deferred_signals():
                for host in self.ssh_hosts.values():
                    with contextlib.suppress(WirespeedError, OSError, TimeoutError):
                        host.close()
                self.ssh_hosts.clear()

    def cpu_devices(self, trials: Sequence[Trial]) -> list[Host]:
        """The DUTs whose CPUs the trials' variants set, each checked against every such
        variant now (UsageError: a governor it lacks, a CPU it cannot unplug ...), before
        anything is measured. Named as the journal must reach them again: user@host."""
        from wirespeed.hosts.renamed import RenamedHost
        from wirespeed.run.cpu_variants import cpu_changes_for

        variants = [
            v
            for v in map(self.plan.variant, dict.fromkeys(t.variant for t in trials))
            if v.changes_cpus or v.tune is not None
        ]
        names = {
            name
            for t in trials
            if (variant := self.plan.variant(t.variant)).changes_cpus or variant.tune is not None
            if (name := cpu_device(self.plan, t.path)) is not None
        }
        devices: list[Host] = []
        for name in sorted(names):
            ssh = self.plan.hosts[name].ssh
            if ssh is None:
                # preflight refused CPU variants there; `tune: suggest` tunes only a DUT
                # of its own (over SSH) or the lab's.
                continue
            device = RenamedHost(self.host(name), str(ssh))
            for variant in variants:
                cpu_changes_for(variant, device)
            devices.append(device)
        return devices

    def link_targets(self, trials: Sequence[Trial]) -> list[LinkTarget]:
        """The real hosts whose links the trials' variants set, each with the interfaces
        that carry its paths, found now (link_variants.py); one per host."""
        from wirespeed.hosts.renamed import RenamedHost
        from wirespeed.run.link_variants import link_target
        from wirespeed.tune.apply import control_interface_of
        from wirespeed.tune.hosts import LOCAL
        from wirespeed.tune.ports import port_namespace

        roles: dict[str, str] = {}
        peers: dict[str, list[str]] = {}
        for trial in trials:
            path = trial.path
            variant = self.plan.variant(trial.variant)
            if self.is_lab_path(path) or not variant.changes_links:
                continue
            address = {
                name: self.plan.hosts[name].traffic_address
                for name in (path.client, path.server, path.dut)
                if name is not None
            }
            # The ends take only the MTU.
            ends = [(path.client, path.server), (path.server, path.client)]
            for name, other in ends if variant.mtu is not None else ():
                if path.dut is not None and name == path.dut:
                    continue
                roles.setdefault(name, "end")
                peers.setdefault(name, []).extend(
                    a for a in (address.get(other), address.get(path.dut or "")) if a
                )
            device = cpu_device(self.plan, path)
            if device is not None and self.plan.hosts[device].ssh is not None:
                roles[device] = "dut"
                others = [address.get(path.client), address.get(path.server)]
                peers.setdefault(device, []).extend(
                    a for a in others if a and a != address.get(device)
                )
        offloads = any(
            any(self.plan.variant(t.variant).offloads)
            for t in trials
            if not self.is_lab_path(t.path)
        )
        targets: list[LinkTarget] = []
        for name, role in sorted(roles.items()):
            plan_host = self.plan.hosts[name]
            host = self.host(name)
            if role == "dut" and offloads and host.which("ethtool") is None:
                # OpenWrt ships without it; busybox has no applet of that name.
                where = name if plan_host.ssh is None else f"{name} ({plan_host.ssh})"
                raise MissingToolError("ethtool", where)
            if plan_host.ssh is not None:
                journal_name = str(plan_host.ssh)
            elif plan_host.port is not None:
                journal_name = port_namespace(plan_host.port.interface)
            else:
                journal_name = LOCAL
            # Asked of the host itself, before it is renamed: an SSH session knows its way in.
            control = None if plan_host.port is not None else control_interface_of(host)
            targets.append(
                link_target(
                    RenamedHost(host, journal_name),
                    list(dict.fromkeys(peers[name])),
                    role=role,
                    control_interface=control,
                    first_only=role != "dut",
                )
            )
        return targets

    def local(self, name: str) -> Host:
        if name not in self.local_hosts:
            from wirespeed.hosts.local import LocalHost

            self.local_hosts[name] = LocalHost(name=name)
        return self.local_hosts[name]

    @contextlib.contextmanager
    def labs_up(self, trials: Sequence[Trial]) -> Iterator[None]:
        lab_plan = self.plan.lab
        keys = sorted(
            {lab_key(t.path) for t in trials if self.is_lab_path(t.path)},
            key=lambda key: (key[0].value, "" if key[1] is None else key[1].label),
        )
        if not keys or lab_plan is None:
            yield
            return
        from wirespeed.lab.lab import Lab, LabSpec

        with contextlib.ExitStack() as stack:
            for key in keys:
                topology, limit = key
                name = lab_name(self.lab_prefix, key)
                lab = Lab.up(
                    LabSpec(
                        topology=topology,
                        link=lab_plan.link,
                        name=name,
                        dut_access=self.lab_dut,
                        limit=limit,
                    ),
                    owned=True,
                    # A name the user chose is theirs to change; the default one gives way.
                    rename=self.lab_prefix is None,
                )
                stack.callback(_teardown, lab)
                self.labs[key] = lab
                if lab.passed_over:
                    self.notice(_passed_over_notice(lab))
            try:
                yield
            finally:
                self.labs.clear()

    def hosts_by_name(self, trials: Sequence[Trial]) -> Mapping[str, Host]:
        hosts: dict[str, Host] = {}
        for trial in trials:
            path = trial.path
            if self.is_lab_path(path):
                # Every lab namespace runs on this machine's kernel with its tools: one entry.
                lab = self.labs[lab_key(path)]
                hosts.setdefault("lab (this machine)", lab.hosts[Role.CLIENT])
                if lab.ssh_host is not None:
                    hosts.setdefault("lab DUT (ssh)", lab.ssh_host)
            else:
                for name in (path.client, path.server, path.dut, *more_senders(trial)):
                    if name is not None:
                        hosts.setdefault(name, self.host(name))
        return hosts

    def roles(self, trials: Sequence[Trial]) -> dict[str, set[str]]:
        roles: dict[str, set[str]] = {}
        for path in {t.path.name: t.path for t in trials}.values():
            if self.is_lab_path(path):
                roles.setdefault("lab (this machine)", set()).update(
                    role.value for role in self.labs[lab_key(path)].hosts
                )
                continue
            if path.topology is Topology.DEVICE:
                roles.setdefault(path.client, set()).add("dut")
                continue
            for role, name in (("client", path.client), ("server", path.server)):
                roles.setdefault(name, set()).add(role)
            if path.dut:
                roles.setdefault(path.dut, set()).add("dut")
        for trial in trials:
            if not self.is_lab_path(trial.path):
                for name in more_senders(trial):
                    roles.setdefault(name, set()).add("sender")
        return roles

    def lab_provenance(self) -> dict[str, object]:
        return {
            lab.name: {
                "topology": lab.spec.topology.value,
                "link": lab.spec.link.name,
                "rate_bps": lab.spec.link.rate_bps,
                "mtu": lab.spec.link.mtu,
                "queue": lab.spec.link.queue,
                "server_address": lab.server_address,
                "dut_access": lab.spec.dut_access,
                "limit": None
                if lab.spec.limit is None
                else {"pps": lab.spec.limit.pps, "bps": lab.spec.limit.bps},
            }
            for lab in self.labs.values()
        }
