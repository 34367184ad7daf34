"""The loop of a run: plan → trials → outcomes, each committed before the next starts.

preflight (tools, hosts) → restore what a killed run left changed → build labs →
provenance → begin run →
for each trial: enter its variant (journaled, variants.py) → set MTU → run_trial →
commit → progress → next
at the end, also on Ctrl-C / SIGTERM / error: restore the variant, stop processes, remove
labs, close the run
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, TypeAlias

from wirespeed import __version__
from wirespeed.errors import MissingToolError, NotRootError, UsageError, WirespeedError
from wirespeed.expectations import encode
from wirespeed.hosts.base import Host
from wirespeed.model import (
    Finding,
    ForwardingLimit,
    PathSpec,
    Role,
    Tool,
    Topology,
    Trial,
    TrialOutcome,
    TrialStatus,
)
from wirespeed.run.trial import Endpoints, program_for, run_trial
from wirespeed.sampling.pool import SamplerPool
from wirespeed.signals import deferred_signals

if TYPE_CHECKING:
    from wirespeed.hosts.ssh import SshHost
    from wirespeed.hosts.ssh_connection import SshSettings
    from wirespeed.lab.lab import Lab
    from wirespeed.lab.tunnel import LabTunnel
    from wirespeed.plan import Plan
    from wirespeed.run.host_tunnel import HostTunnel
    from wirespeed.run.link_variants import LinkTarget
    from wirespeed.run.search_generators import FrameJournal
    from wirespeed.run.search_legs import SearchPath
    from wirespeed.run.variants import VariantStates
    from wirespeed.store import Store
    from wirespeed.tune.journal import Journal


def _teardown(lab: Lab) -> None:
    with deferred_signals():
        lab.down()


def _passed_over_notice(lab: Lab) -> str:
    from wirespeed.lab.record import describe_owner

    taken = "; ".join(
        f"lab {name} is in use by {describe_owner(owner)}" for name, owner in lab.passed_over
    )
    return f"{taken}: this run builds its own, lab {lab.name}"


def _keep_in_spool(store: Store, run_id: int, outcome: TrialOutcome) -> str:
    """Keep the trial the store could not take in the spool (store/spool.py); where it
    is, or why it could not be kept either."""
    from wirespeed.store import StoreError
    from wirespeed.store.spool import keep

    try:
        return f"kept in {keep(store.url, run_id, outcome)}: `--resume` commits it"
    except (OSError, StoreError) as spool_error:
        reason = spool_error.strerror if isinstance(spool_error, OSError) else spool_error.message
        return f"its result is lost: it could not be kept in the spool either ({reason})"


class Progress(Protocol):
    """How a run tells the user where it is; NullProgress for --quiet and tests."""

    def start(self, trials: Sequence[Trial]) -> None: ...
    def trial_started(self, trial: Trial) -> None: ...
    def tick(self, elapsed: float) -> None: ...
    def step(self, text: str) -> None: ...
    def trial_finished(self, outcome: TrialOutcome) -> None: ...
    def close(self) -> None: ...


class NullProgress:
    def start(self, trials: Sequence[Trial]) -> None:
        pass

    def trial_started(self, trial: Trial) -> None:
        pass

    def tick(self, elapsed: float) -> None:
        pass

    def step(self, text: str) -> None:
        pass

    def trial_finished(self, outcome: TrialOutcome) -> None:
        pass

    def close(self) -> None:
        pass


@dataclass
class RunOutcome:
    run_id: int
    outcomes: list[TrialOutcome] = field(default_factory=list)

    @property
    def failed(self) -> list[TrialOutcome]:
        return [o for o in self.outcomes if o.status is TrialStatus.FAILED]


def lab_topology(path: PathSpec) -> Topology:
    """The lab a path runs in: a device path's benchmarks run on the endpoint lab's DUT."""
    return Topology.ENDPOINT if path.topology is Topology.DEVICE else path.topology


LabKey: TypeAlias = tuple[Topology, ForwardingLimit | None]


def lab_key(path: PathSpec) -> LabKey:
    """Which of a run's labs a path runs in: one per topology and DUT limit, so that a
    15 kpps DUT and a 60 kpps one of the same topology are two labs."""
    return lab_topology(path), path.limit


def lab_name(prefix: str | None, key: LabKey) -> str | None:
    """`nat`, `nat-15kpps`, `PREFIX-nat-15kpps`; None: the topology's own (Lab.up's
    default, which gives way to nat-2 ... while a live run holds it)."""
    topology, limit = key
    name = topology.value if limit is None else f"{topology.value}-{limit.label}"
    if prefix:
        return f"{prefix}-{name}"
    return None if limit is None else name


def is_lab_path(plan: Plan, path: PathSpec) -> bool:
    """A path that names no host of the plan runs in the emulated lab."""
    return plan.lab is not None and path.client not in plan.hosts


def preflight(plan: Plan, trials: Sequence[Trial]) -> None:
    """Refuse up front what cannot work, before a store is opened or a lab is built."""
    from wirespeed.hosts.local import LocalHost

    if not trials:
        raise UsageError("the plan selects no trials (check --only)")
    known = {variant.name for variant in plan.variants}
    for trial in trials:
        if trial.variant not in known:
            raise UsageError(f"trial {trial.key}: the plan has no variant {trial.variant!r}")
    paths = {t.path.name: t.path for t in trials}.values()
    for path in paths:
        _refuse_cpu_variants_without_a_device(plan, path, trials)
    if any(is_lab_path(plan, p) for p in paths) and os.geteuid() != 0:
        raise NotRootError("the emulated lab")
    for path in paths:
        if is_lab_path(plan, path):
            continue
        # A variant's MTU is the trial's too (expand.py); that one is set on the hosts.
        if any(
            t.test.spec.mtu not in (None, plan.variant(t.variant).mtu)
            for t in trials
            if t.path.name == path.name
        ):
            raise UsageError(
                f"path {path.name!r} runs on real hosts, and a test's `mtu` is set only on "
                "the lab's links",
                hint="give the MTU to a variant instead (variants: - {name: mtu512, mtu: "
                "512}): it goes on the DUT over SSH and on the path's ends",
            )
        _refuse_steering_without_a_device(plan, path, trials)
    this_machine = LocalHost(name="this machine")
    for program in sorted(_tunnel_tools_here(plan, trials)):
        if this_machine.which(program) is None:
            raise MissingToolError(program)
    for program in sorted({program_for(t.test.tool) for t in trials if t.test.tool.moves_traffic}):
        if this_machine.which(program) is None:
            raise MissingToolError(program)
    replayed_here = [
        t
        for t in trials
        if _named_generator(t) == "tcpreplay"
        and (
            is_lab_path(plan, t.path)
            or any(plan.hosts[name].ssh is None for name in _search_senders(t))
        )
    ]
    if replayed_here and this_machine.which("tcpreplay") is None:
        raise MissingToolError("tcpreplay")
    _refuse_missing_benchmarks(plan, trials, this_machine)


def _tunnel_tools_here(plan: Plan, trials: Sequence[Trial]) -> set[str]:
    """What this machine needs for the trials' tunnels: a lab's both ends; between real
    hosts openssl for OpenVPN's keys (made here), and an end's tools if it is this machine."""
    from wirespeed.lab.tunnel import tools_for
    from wirespeed.model import TunnelKind
    from wirespeed.run.host_tunnel import WIREGUARD_MODULE, tools_on_host

    needed: set[str] = set()
    for trial in trials:
        tunnel = trial.path.tunnel
        if tunnel is None:
            continue
        if is_lab_path(plan, trial.path):
            needed.update(tools_for(tunnel))
            continue
        if tunnel.kind is TunnelKind.OPENVPN:
            needed.add("openssl")
        if any(plan.hosts[name].ssh is None for name in tunnel_ends(trial.path)):
            needed.update(tools_on_host(tunnel.kind))
            if tunnel.kind is TunnelKind.WIREGUARD and not os.path.isdir(WIREGUARD_MODULE):
                needed.add("wireguard-go")  # no kernel module loaded here
    return needed


def tunnel_ends(path: PathSpec) -> tuple[str, str]:
    """The plan hosts of a real path's tunnel: (the client, the DUT or the server)."""
    from wirespeed.model import TunnelEnds

    assert path.tunnel is not None
    if path.tunnel.ends is TunnelEnds.DUT:
        return path.client, path.dut or path.server
    return path.client, path.server


def _named_generator(trial: Trial) -> str | None:
    """The generator a forwarding search's plan names (None: not a search)."""
    if trial.test.search is None:
        return None
    value = trial.test.search.as_dict().get("generator")
    return value if isinstance(value, str) else None


def _search_senders(trial: Trial) -> list[str]:
    """The plan's hosts that send a search's traffic up: its client and `senders:`."""
    assert trial.test.search is not None and trial.path.client is not None
    more = trial.test.search.as_dict().get("senders")
    return (
        [trial.path.client, *(str(n) for n in more)]
        if isinstance(more, list)
        else [trial.path.client]
    )


def _more_senders(trial: Trial) -> list[str]:
    """A search's `senders:` beside its client (none for any other test)."""
    more = trial.test.search.as_dict().get("senders") if trial.test.search is not None else None
    return [str(name) for name in more] if isinstance(more, list) else []


def _refuse_missing_benchmarks(plan: Plan, trials: Sequence[Trial], this_machine: Host) -> None:
    """A benchmark on this machine or in the lab (whose namespaces share its files) needs
    its program here: refused before anything runs, naming the package. (An SSH device
    is asked when it is logged in to.)"""
    from wirespeed.run.bench_trial import find_program
    from wirespeed.tools.bench import bench_driver_for

    seen: set[tuple[str, str]] = set()
    for trial in trials:
        bench = trial.test.bench
        path = trial.path
        if bench is None or (not is_lab_path(plan, path) and plan.hosts[path.dut or ""].ssh):
            continue
        options = bench.as_dict()
        key = (trial.test.tool.value, str(options.get("directory")))
        if key not in seen:
            seen.add(key)
            find_program(this_machine, bench_driver_for(trial.test.tool), options)


def cpu_device(plan: Plan, path: PathSpec) -> str | None:
    """The plan host whose CPUs a path's variants set: its DUT (on an endpoint path the
    server); None on lab paths."""
    if is_lab_path(plan, path):
        return None
    return path.dut or (path.server if path.topology is Topology.ENDPOINT else None)


def _refuse_cpu_variants_without_a_device(
    plan: Plan, path: PathSpec, trials: Sequence[Trial]
) -> None:
    """CPU variants need a DUT of its own over SSH: the lab's DUT (a namespace, or the
    dropbear in one) and a host without ssh are this machine, whose cores wirespeed
    never takes offline or reclocks."""
    changing = sorted(
        {t.variant for t in trials if t.path.name == path.name}
        & {v.name for v in plan.variants if v.changes_cpus}
    )
    if not changing:
        return
    named = ", ".join(repr(v) for v in changing)
    if is_lab_path(plan, path):
        raise UsageError(
            f"path {path.name!r} runs in the lab, whose DUT shares this machine's CPUs: "
            f"variants {named} set cores online, a governor or a maximum frequency",
            hint="run CPU variants on a path whose dut (or endpoint server) is a device "
            "with ssh: under hosts:",
        )
    device = cpu_device(plan, path)
    if device is None or plan.hosts[device].ssh is None:
        raise UsageError(
            f"path {path.name!r}: variants {named} set CPUs, and "
            + (
                "the path names no dut"
                if device is None
                else f"its DUT {device!r} is this machine (no ssh:)"
            ),
            hint="CPU variants act on a DUT reached over SSH; give the path a dut with ssh:",
        )


def _refuse_steering_without_a_device(plan: Plan, path: PathSpec, trials: Sequence[Trial]) -> None:
    """RPS, XPS and offloads act on a real path's DUT over SSH (link_variants.py); the
    MTU goes on whichever of its hosts wirespeed reaches, so it needs no DUT."""
    steering = sorted(
        {t.variant for t in trials if t.path.name == path.name}
        & {
            v.name
            for v in plan.variants
            if v.rps is not None or v.xps is not None or any(v.offloads)
        }
    )
    if not steering:
        return
    device = cpu_device(plan, path)
    if device is None or plan.hosts[device].ssh is None:
        named = ", ".join(repr(v) for v in steering)
        raise UsageError(
            f"path {path.name!r}: variants {named} set RPS, XPS or offloads, and "
            + (
                "the path names no dut"
                if device is None
                else f"its DUT {device!r} is this machine (no ssh:)"
            ),
            hint="they act on the DUT over SSH: give the path a dut with ssh: under hosts:",
        )


def _unless_lab_lost(outcome: TrialOutcome, lab: Lab | None) -> TrialOutcome:
    """The outcome, or a failed one if its lab was removed or taken over meanwhile
    (`lab down --force`, perhaps rebuilt by another run under the same namespace names):
    what was measured need not be this run's traffic."""
    if lab is None or lab.still_ours():
        return outcome
    return dataclasses.replace(
        outcome,
        status=TrialStatus.FAILED,
        result=None,
        findings=(),
        reason=f"lab {lab.name} was removed, or taken over by another process, "
        "during the trial: its numbers may not be this run's",
    )


def _not_set_up(trial: Trial, started_at: float, error: WirespeedError) -> TrialOutcome:
    """A trial that could not even be set up: it fails with the reason, the run goes on."""
    return TrialOutcome(
        trial=trial,
        status=TrialStatus.FAILED,
        started_at=started_at,
        finished_at=time.time(),
        reason=error.message,
    )


class Runner:
    """Runs a plan's trials against labs and hosts, committing each outcome to a store.

    Lab paths get one lab per topology and DUT limit (lab_key), named after the topology
    and limit (`nat`, `nat-15kpps`; or `<lab_prefix>-nat...` so that two runs, or a run
    and a test, can use labs side by side). A lab another live
    run uses is never touched: a default name it holds gives way to topology-2, -3 ...
    (said through notice), a lab_prefix'd one is refused (LabInUseError)."""

    def __init__(
        self,
        plan: Plan,
        store: Store,
        progress: Progress | None = None,
        *,
        lab_prefix: str | None = None,
        watch: Sequence[str] = ("dut",),
        sample_interval: float = 1.0,
        lab_dut: str = "netns",
        ssh_settings: SshSettings | None = None,
        notice: Callable[[str], None] | None = None,
    ) -> None:
        self.plan = plan
        self.store = store
        self.progress: Progress = progress or NullProgress()
        self.lab_prefix = lab_prefix
        self.watch = tuple(watch)  # roles whose hosts are sampled during every trial
        self.sample_interval = sample_interval
        self.lab_dut = lab_dut  # "ssh": each lab's DUT is a dropbear device
        self.ssh_settings = ssh_settings
        self.notice: Callable[[str], None] = notice or (lambda message: None)
        self._labs: dict[LabKey, Lab] = {}
        self._local_hosts: dict[str, Host] = {}
        self._ssh_hosts: dict[str, SshHost] = {}
        self._port_hosts: Mapping[str, Host] = {}  # ports of this machine, in namespaces
        self._samplers = SamplerPool()  # each run() makes its own
        self._said: set[str] = set()
        # The run in the store once run() has begun or taken it over: what an
        # interruption tells the user to resume.
        self.run_id: int | None = None
        self._tunnel: LabTunnel | None = None  # the tunnel the current trial runs through
        self._host_tunnel: HostTunnel | None = None  # ... between real hosts
        self._journal: Journal | None = None  # the run's, for what a trial makes on hosts
        self._boots: dict[str, str | None] = {}  # plan host -> its boot id, once read

    def run(
        self,
        trials: Sequence[Trial],
        *,
        argv: Sequence[str] = (),
        resume_run: int | None = None,
        replacing: frozenset[str] = frozenset(),
    ) -> RunOutcome:
        """Run trials as a new run, or (resume_run) add them to that stored run, which
        this process owns (store/resume.py claim_run). A trial whose key is in
        `replacing` is a failed one tried again: its outcome replaces the failed one."""
        from wirespeed.run.variants import VariantStates, journal_for, recover_left_changes
        from wirespeed.store import StoreError
        from wirespeed.store.not_stored import commit_failed

        preflight(self.plan, trials)
        journal = journal_for(self.store)  # shares the store's engine; not closed here
        self._journal = journal
        # Before anything is built or measured: a run killed with SIGKILL left its
        # variant's knobs changed (or its tunnels up), and measuring on top of them
        # would be wrong. Its devices are reached as this run reaches its own.
        from wirespeed.run.port_hosts import port_setups, ports_for_run, through_ports

        setups = port_setups(self.plan, trials)
        # On a bench of ports, a device is perhaps reached only through one of them: its
        # rows wait until the ports are moved again (below).
        recovered = recover_left_changes(journal, self.ssh_settings, strict=not setups)
        if os.geteuid() == 0:
            from wirespeed.lab.lab import down_orphans

            # Labs a killed run left behind: their namespaces still hold its addresses.
            recovered += [f"removed lab {name}, left by a run that died" for name in down_orphans()]
        with (
            ports_for_run(self.plan, trials, journal) as self._port_hosts,
            self._devices_connected(
                trials, through_ports(self.ssh_settings, setups) if setups else None
            ),
            self._labs_up(trials),
        ):
            if setups:
                recovered += recover_left_changes(journal, through_ports(self.ssh_settings, setups))
            from wirespeed.provenance import collect
            from wirespeed.store import RunInfo

            devices = self._cpu_devices(trials)
            real = self._link_targets(trials)
            hosts = self._hosts_by_name(trials)
            facts: dict[str, dict[str, str | None]] = collect(hosts)
            for name, roles in self._roles(trials).items():
                if name in facts:
                    facts[name]["role"] = ", ".join(sorted(roles))
            info = RunInfo(
                title=self.plan.title,
                plan_path=self.plan.source,
                plan_text=self.plan.text,
                expectations=encode(self.plan.expectations),
                argv=tuple(argv),
                started_at=time.time(),
                wirespeed_version=__version__,
                provenance={
                    "hosts": facts,
                    "labs": self._lab_provenance(),
                    "variants": {
                        name: self.plan.variant(name).state()
                        for name in dict.fromkeys(t.variant for t in trials)
                    },
                    **({"recovered": recovered} if recovered else {}),
                },
            )
            run_id = self.store.begin_run(info) if resume_run is None else resume_run
            self.run_id = run_id
            outcome = RunOutcome(run_id)
            status = "interrupted"
            store_gone = False
            self.progress.start(trials)
            # One sampler per watched host for the run, a segment of it per trial: starting
            # one per trial cost each trial ~15 ms of the device's CPU (sampling/pool.py).
            self._samplers = SamplerPool()
            try:
                # Leaving the block restores the variant in force, before the labs go.
                with VariantStates(journal, self._labs, devices, real) as states:
                    for index, trial in enumerate(trials):
                        problem = states.enter(self.plan.variant(trial.variant))
                        self._say_suggested(states)
                        self.progress.trial_started(trial)
                        result = self._run_one(trial, problem)
                        try:
                            self.store.add_outcome(
                                run_id, result, replace_failed=trial.key in replacing
                            )
                        except StoreError as error:
                            store_gone = True
                            raise commit_failed(
                                error,
                                run_id,
                                stored=[o.trial for o in outcome.outcomes],
                                lost=trial,
                                lost_fate=_keep_in_spool(self.store, run_id, result),
                                not_run=trials[index + 1 :],
                                resumed=resume_run is not None,
                            ) from None
                        outcome.outcomes.append(result)
                        self.progress.trial_finished(result)
                status = "failed" if outcome.failed else "complete"
            finally:
                self._samplers.close()  # before the labs and the SSH sessions go
                self.progress.close()
                # A store that could not take a trial would not take this either; the run
                # stays "running", and its owner, this process, will be gone: resumable.
                if not store_gone:
                    self.store.finish_run(run_id, status)
        return outcome

    # -- one trial ---------------------------------------------------------------------

    def _run_one(self, trial: Trial, variant_problem: str | None = None) -> TrialOutcome:
        started_at = time.time()
        if trial.test.tool.searches:
            return self._run_search(trial, variant_problem, started_at)
        if trial.test.bench is not None:
            return self._run_bench(trial, variant_problem, started_at)
        if trial.path.tunnel is not None and self._tunnel is None and self._is_lab_path(trial.path):
            return self._through_tunnel(trial, variant_problem, started_at)
        real_path = not self._is_lab_path(trial.path)
        if trial.path.tunnel is not None and self._host_tunnel is None and real_path:
            return self._through_host_tunnel(trial, variant_problem, started_at)
        try:
            if variant_problem is not None:
                raise WirespeedError(variant_problem)
            endpoints = self._endpoints(trial.path)
            lab = self._lab_at_mtu(trial)
        except WirespeedError as error:
            return _not_set_up(trial, started_at, error)
        run = run_trial
        if trial.test.tool is Tool.RRUL:
            from wirespeed.run.rrul_trial import run_rrul_trial as run
        outcome = run(
            trial,
            endpoints,
            on_tick=self.progress.tick,
            watch=self._watched(trial.path),
            sample_interval=self.sample_interval,
            samplers_from=self._samplers,
            power=self.plan.power,
            notice=self.notice,
        )
        return _unless_lab_lost(outcome, lab)

    def _through_tunnel(
        self, trial: Trial, variant_problem: str | None, started_at: float
    ) -> TrialOutcome:
        """The trial through its path's tunnel, built for it (with its variant's options:
        lab/tunnel.py) and removed after it; its findings gain the tunnel's."""
        from wirespeed.analysis.tunnel_findings import with_tunnel_findings
        from wirespeed.lab.tunnel import lab_tunnel

        assert trial.path.tunnel is not None
        with contextlib.ExitStack() as stack:
            try:
                if variant_problem is not None:
                    raise WirespeedError(variant_problem)
                lab = self._lab_at_mtu(trial)
                assert lab is not None
                tunnel = stack.enter_context(lab_tunnel(lab, trial.path.tunnel))
            except WirespeedError as error:
                return _not_set_up(trial, started_at, error)
            self._tunnel = tunnel
            try:
                outcome = self._run_one(trial)
            finally:
                self._tunnel = None
            # Before the tunnel goes: its findings read the daemons' logs.
            return with_tunnel_findings(outcome, tunnel.findings(), tunnel.daemons_by_pid())

    def _through_host_tunnel(
        self, trial: Trial, variant_problem: str | None, started_at: float
    ) -> TrialOutcome:
        """The trial through its path's tunnel between real hosts, started for it on the
        hosts (run/host_tunnel.py, journaled) and removed after it."""
        from wirespeed.analysis.tunnel_findings import with_tunnel_findings
        from wirespeed.model import TunnelEnds
        from wirespeed.run.host_tunnel import HostTunnelEnd, host_tunnel
        from wirespeed.tune.hosts import LOCAL

        path = trial.path
        assert path.tunnel is not None and self._journal is not None
        near_name, far_name = tunnel_ends(path)

        def end(name: str, where: str) -> HostTunnelEnd:
            from wirespeed.tune.apply import host_boot_id

            ssh, host = self.plan.hosts[name].ssh, self._host(name)
            if name not in self._boots:
                self._boots[name] = host_boot_id(host)
            journal_name = LOCAL if ssh is None else str(ssh)
            return HostTunnelEnd(host, journal_name, where, boot=self._boots[name])

        far_where = "DUT" if path.tunnel.ends is TunnelEnds.DUT else "server"
        far_outer = self.plan.hosts[far_name].traffic_address
        assert far_outer is not None  # the plan refuses a server without an address
        with contextlib.ExitStack() as stack:
            try:
                if variant_problem is not None:
                    raise WirespeedError(variant_problem)
                tunnel = stack.enter_context(
                    host_tunnel(
                        path.tunnel,
                        end(near_name, "client"),
                        end(far_name, far_where),
                        far_outer=far_outer,
                        link_mtu=path.link.mtu if path.link is not None else 1500,
                        journal=self._journal,
                    )
                )
            except WirespeedError as error:
                return _not_set_up(trial, started_at, error)
            self._host_tunnel = tunnel
            try:
                outcome = self._run_one(trial)
            finally:
                self._host_tunnel = None
            # Only the DUT's daemon: another host's pids mean nothing in the DUT's samples.
            on_dut = {pid: what for pid, what in tunnel.daemons_by_pid().items() if "DUT" in what}
            outcome = with_tunnel_findings(outcome, tunnel.findings(), on_dut)
        for problem in tunnel.problems:
            self.notice(
                f"tunnel of path {path.name!r}: {problem}; `wirespeed tune restore HOST` "
                "tries again"
            )
        return outcome

    def _lab_at_mtu(self, trial: Trial) -> Lab | None:
        """The trial's lab (None on real hosts), its links at the MTU the trial runs at."""
        lab = self._labs.get(lab_key(trial.path)) if self._is_lab_path(trial.path) else None
        if lab is not None:
            lab.check_still_ours()
            link_mtu = trial.path.link.mtu if trial.path.link else 1500
            # The plan refuses a test MTU and a variant MTU together.
            variant_mtu = self.plan.variant(trial.variant).mtu
            wanted = trial.test.spec.mtu or variant_mtu or link_mtu
            if wanted != lab.mtu:
                lab.set_mtu(wanted)
        return lab

    def _run_search(
        self, trial: Trial, variant_problem: str | None, started_at: float
    ) -> TrialOutcome:
        from wirespeed.run.search_trial import run_search_trial
        from wirespeed.search.mlrsearch import mlrsearch

        try:
            if variant_problem is not None:
                raise WirespeedError(variant_problem)
            lab = self._lab_at_mtu(trial)
            path = self._search_path(trial, lab)
        except WirespeedError as error:
            return _not_set_up(trial, started_at, error)
        outcome = run_search_trial(
            trial,
            path,
            search=mlrsearch,
            on_tick=self.progress.tick,
            on_step=self.progress.step,
            watch=self._watched(trial.path),
            sample_interval=self.sample_interval,
            samplers_from=self._samplers,
            frames=self._frame_journal(),
        )
        return _unless_lab_lost(outcome, lab)

    def _frame_journal(self) -> FrameJournal | None:
        """Where a search journals tcpreplay's frame files, each host by the name the
        next run's recovery reaches it by (as the tunnels' ends are)."""
        from wirespeed.run.search_generators import FrameJournal
        from wirespeed.tune.hosts import LOCAL

        if self._journal is None:
            return None

        def name_of(host: Host) -> str:
            known = self.plan.hosts.get(host.name)
            ssh = known.ssh if known is not None else None
            return LOCAL if ssh is None else str(ssh)

        return FrameJournal(self._journal, name_of)

    def _search_path(self, trial: Trial, lab: Lab | None) -> SearchPath:
        from wirespeed.run.search_legs import NatDut, SearchPath, lab_legs, real_legs

        path = trial.path
        rate = path.link.rate_bps if path.link is not None else None
        if lab is not None:
            return SearchPath(lab_legs(lab), rate, in_lab=True)
        client = self.plan.hosts[path.client]
        server = self.plan.hosts[path.server]
        nat = None
        if path.topology is Topology.NAT and path.dut is not None:
            wan = self.plan.hosts[path.dut].traffic_address
            nat = None if wan is None else NatDut(path.dut, wan)
        from wirespeed.plan.forwarding import ForwardingOptions

        assert trial.test.search is not None
        senders = ForwardingOptions.model_validate(trial.test.search.as_dict()).senders
        legs = real_legs(
            self._host(path.client),
            self._host(path.server),
            client_address=client.traffic_address,
            server_address=server.traffic_address,
            nat=nat,
            senders=[self._host(name) for name in senders],
        )
        return SearchPath(legs, rate, in_lab=False)

    def _run_bench(
        self, trial: Trial, variant_problem: str | None, started_at: float
    ) -> TrialOutcome:
        from wirespeed.run.bench_trial import run_bench_trial

        lab = self._labs.get(lab_key(trial.path)) if self._is_lab_path(trial.path) else None
        try:
            if variant_problem is not None:
                raise WirespeedError(variant_problem)
            if lab is not None:
                lab.check_still_ours()
            host = self._device_host(trial.path)
        except WirespeedError as error:
            return _not_set_up(trial, started_at, error)
        # The benchmark's own host is watched whatever --watch says: its clock and
        # temperature are what the figures depend on.
        outcome = run_bench_trial(
            trial,
            host,
            on_tick=self.progress.tick,
            watch=[("dut", host)],
            sample_interval=self.sample_interval,
            samplers_from=self._samplers,
            before_start=self._before_start,
            notice=self._notice_once,
        )
        return _unless_lab_lost(outcome, lab)

    def _say_suggested(self, states: VariantStates) -> None:
        """What a `tune: suggest` variant changed, said once per host."""
        from wirespeed.tune.suggest import explain

        while states.suggested:
            host, plan = states.suggested.popitem()
            said = "; ".join(explain(change) for change in plan.changes) or "nothing to change"
            self._notice_once(f"tune suggest on {host}: {said}")

    def _notice_once(self, message: str) -> None:
        """A benchmark's notice (an unpinned big.LITTLE board ...) once per run, not per
        repetition."""
        if message not in self._said:
            self._said.add(message)
            self.notice(message)

    def _device_host(self, path: PathSpec) -> Host:
        if self._is_lab_path(path):
            return self._labs[lab_key(path)].device_hosts[Role.DUT]
        assert path.dut is not None
        return self._host(path.dut)

    def _before_start(self, host: Host) -> list[Finding]:
        from wirespeed.analysis.bench_findings import judge_before_start
        from wirespeed.sampling.before import measure_before_start

        try:
            before, _ = measure_before_start(host)
        except (WirespeedError, OSError, TimeoutError, ValueError):
            return []  # best effort: the benchmark's figures stand without it
        return judge_before_start(before, host.name, controller_pid=os.getpid())

    def _watched(self, path: PathSpec) -> list[tuple[str, Host]]:
        """The hosts to sample, by role, each once (an endpoint DUT is also the server)."""
        hosts: dict[str, Host] = {}
        by_role: dict[str, Host]
        if self._is_lab_path(path):
            lab = self._labs[lab_key(path)]
            by_role = {role.value: host for role, host in lab.device_hosts.items()}
        else:
            names = {"client": path.client, "server": path.server, "dut": path.dut}
            by_role = {r: self._host(n) for r, n in names.items() if n is not None}
        watched: list[tuple[str, Host]] = []
        for role in self.watch:
            host = by_role.get(role)
            if host is not None and host.name not in hosts:
                hosts[host.name] = host
                watched.append((role, host))
        return watched

    def _endpoints(self, path: PathSpec) -> Endpoints:
        if self._is_lab_path(path):
            lab = self._labs[lab_key(path)]
            return Endpoints(
                client=lab.device_hosts[Role.CLIENT],
                server=lab.device_hosts[Role.SERVER],
                # Through a tunnel: the far end's address in it, or the server beyond it.
                target=lab.server_address if self._tunnel is None else self._tunnel.target,
            )
        target = self.plan.hosts[path.server].traffic_address
        if self._host_tunnel is not None:
            target = self._host_tunnel.target  # the far end's tunnel address
        if target is None:
            raise UsageError(f"host {path.server!r} has no address for the client to reach")
        return Endpoints(
            client=self._host(path.client),
            server=self._host(path.server),
            target=target,
        )

    # -- hosts and labs ----------------------------------------------------------------

    def _is_lab_path(self, path: PathSpec) -> bool:
        return is_lab_path(self.plan, path)

    def _host(self, name: str) -> Host:
        """A plan's host: over SSH if it has an ssh target, a port's namespace, else this
        machine."""
        if name in self._ssh_hosts:
            return self._ssh_hosts[name]
        if name in self._port_hosts:
            return self._port_hosts[name]
        return self._local(name)

    @contextlib.contextmanager
    def _devices_connected(
        self, trials: Sequence[Trial], settings: SshSettings | None = None
    ) -> Iterator[None]:
        """Log in to every SSH host the trials use and check its tools, before anything
        is measured; close the sessions (stopping what still runs there) at the end."""
        from wirespeed.hosts.ssh import SshHost
        from wirespeed.model import TunnelKind
        from wirespeed.run.bench_trial import find_program
        from wirespeed.run.host_tunnel import missing_wireguard, tools_on_host
        from wirespeed.tools.bench import bench_driver_for

        needs: dict[str, set[str]] = {}
        wireguard_ends: set[str] = set()  # hosts with a WireGuard end: module or -go
        benches: dict[str, dict[tuple[str, str], Trial]] = {}
        for trial in trials:
            path = trial.path
            if self._is_lab_path(path):
                continue
            if trial.test.bench is not None:
                if path.dut is not None and self.plan.hosts[path.dut].ssh is not None:
                    needs.setdefault(path.dut, set())
                    benches.setdefault(path.dut, {})[
                        (trial.test.tool.value, str(trial.test.bench.option("directory")))
                    ] = trial
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
                replayed = _named_generator(trial) == "tcpreplay"
                for name in _search_senders(trial):
                    if self.plan.hosts[name].ssh is not None:
                        tools = needs.setdefault(name, set())
                        tools.add("tcpreplay" if replayed else program)
        try:
            for name, tools in needs.items():
                ssh = self.plan.hosts[name].ssh
                assert ssh is not None
                host = SshHost(ssh, settings or self.ssh_settings, name=name)
                self._ssh_hosts[name] = host
                host.connect()
                for program in sorted(tools):
                    if host.which(program) is None:
                        raise MissingToolError(program, f"{name} ({host.destination})")
                if name in wireguard_ends:
                    missing = missing_wireguard(host, f"{name} ({host.destination})")
                    if missing is not None:
                        raise missing
                for bench_trial in benches.get(name, {}).values():
                    bench = bench_trial.test.bench
                    assert bench is not None
                    driver = bench_driver_for(bench_trial.test.tool)
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
                for host in self._ssh_hosts.values():
                    with contextlib.suppress(WirespeedError, OSError, TimeoutError):
                        host.close()
                self._ssh_hosts.clear()

    def _cpu_devices(self, trials: Sequence[Trial]) -> list[Host]:
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
            device = RenamedHost(self._host(name), str(ssh))
            for variant in variants:
                cpu_changes_for(variant, device)
            devices.append(device)
        return devices

    def _link_targets(self, trials: Sequence[Trial]) -> list[LinkTarget]:
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
            if self._is_lab_path(path) or not variant.changes_links:
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
            if not self._is_lab_path(t.path)
        )
        targets: list[LinkTarget] = []
        for name, role in sorted(roles.items()):
            plan_host = self.plan.hosts[name]
            host = self._host(name)
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

    def _local(self, name: str) -> Host:
        if name not in self._local_hosts:
            from wirespeed.hosts.local import LocalHost

            self._local_hosts[name] = LocalHost(name=name)
        return self._local_hosts[name]

    @contextlib.contextmanager
    def _labs_up(self, trials: Sequence[Trial]) -> Iterator[None]:
        lab_plan = self.plan.lab
        keys = sorted(
            {lab_key(t.path) for t in trials if self._is_lab_path(t.path)},
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
                self._labs[key] = lab
                if lab.passed_over:
                    self.notice(_passed_over_notice(lab))
            try:
                yield
            finally:
                self._labs.clear()

    def _hosts_by_name(self, trials: Sequence[Trial]) -> Mapping[str, Host]:
        hosts: dict[str, Host] = {}
        for trial in trials:
            path = trial.path
            if self._is_lab_path(path):
                # Every lab namespace runs on this machine's kernel with its tools: one entry.
                lab = self._labs[lab_key(path)]
                hosts.setdefault("lab (this machine)", lab.hosts[Role.CLIENT])
                if lab.ssh_host is not None:
                    hosts.setdefault("lab DUT (ssh)", lab.ssh_host)
            else:
                for name in (path.client, path.server, path.dut, *_more_senders(trial)):
                    if name is not None:
                        hosts.setdefault(name, self._host(name))
        return hosts

    def _roles(self, trials: Sequence[Trial]) -> dict[str, set[str]]:
        roles: dict[str, set[str]] = {}
        for path in {t.path.name: t.path for t in trials}.values():
            if self._is_lab_path(path):
                roles.setdefault("lab (this machine)", set()).update(
                    role.value for role in self._labs[lab_key(path)].hosts
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
            if not self._is_lab_path(trial.path):
                for name in _more_senders(trial):
                    roles.setdefault(name, set()).add("sender")
        return roles

    def _lab_provenance(self) -> dict[str, object]:
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
            for lab in self._labs.values()
        }
