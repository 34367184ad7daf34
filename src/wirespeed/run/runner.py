"""The loop of a run: plan → trials → outcomes, each committed before the next starts.

preflight (tools, hosts) → restore what a killed run left changed → build labs →
provenance → begin run →
for each trial: enter its variant (journaled, variants.py) → set MTU → its kind runs it
(trial_kind.py and the kinds' hooks: the runner asks them, never which tool a test is) →
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
from typing import TYPE_CHECKING, Protocol, TypeVar, cast

from wirespeed import __version__
from wirespeed.errors import UsageError, WirespeedError
from wirespeed.expectations import encode
from wirespeed.hosts.base import Host
from wirespeed.model import (
    Finding,
    PathSpec,
    Role,
    Topology,
    Trial,
    TrialOutcome,
    TrialStatus,
)
from wirespeed.run.paths import lab_key, tunnel_ends
from wirespeed.run.preflight import preflight
from wirespeed.run.run_hosts import RunHosts
from wirespeed.run.site import NotSetUp, TrialSite
from wirespeed.run.trial_life import Endpoints
from wirespeed.sampling.pool import SamplerPool

if TYPE_CHECKING:
    from wirespeed.hosts.ssh_connection import SshSettings
    from wirespeed.lab.lab import Lab
    from wirespeed.lab.tunnel import LabTunnel
    from wirespeed.plan import Plan
    from wirespeed.run.host_tunnel import HostTunnel
    from wirespeed.run.search_generators import FrameJournal
    from wirespeed.run.search_legs import SearchPath
    from wirespeed.run.variants import VariantStates
    from wirespeed.store import Store
    from wirespeed.tune.journal import Journal


T = TypeVar("T")


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
    """Runs a plan's trials against labs and hosts (run_hosts.py: how they are named,
    set up and torn down), committing each outcome to a store."""

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
        labels: Mapping[str, str] | None = None,
    ) -> None:
        self.plan = plan
        # What the user said the run is (`run --label firmware=23.05.3`): stored in its
        # provenance, the keys a trend groups runs by.
        self.labels = dict(labels or {})
        self.store = store
        self.progress: Progress = progress or NullProgress()
        self.watch = tuple(watch)  # roles whose hosts are sampled during every trial
        self.sample_interval = sample_interval
        self.ssh_settings = ssh_settings
        self.notice: Callable[[str], None] = notice or (lambda message: None)
        self.hosts = RunHosts(
            plan,
            lab_prefix=lab_prefix,
            lab_dut=lab_dut,
            ssh_settings=ssh_settings,
            notice=self.notice,
        )
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
        settings: Mapping[str, object] | None = None,
        resume_run: int | None = None,
        replacing: frozenset[str] = frozenset(),
    ) -> RunOutcome:
        """Run trials as a new run, or (resume_run) add them to that stored run, which
        this process owns (store/resume.py claim_run); a new run stores `settings` (how
        it measures: run/settings.py's to_json()) for its resume. A trial whose key is in
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
            ports_for_run(self.plan, trials, journal) as self.hosts.port_hosts,
            self.hosts.devices_connected(
                trials, through_ports(self.ssh_settings, setups) if setups else None
            ),
            self.hosts.labs_up(trials),
        ):
            if setups:
                recovered += recover_left_changes(journal, through_ports(self.ssh_settings, setups))
            from wirespeed.provenance import collect
            from wirespeed.store import RunInfo

            devices = self.hosts.cpu_devices(trials)
            real = self.hosts.link_targets(trials)
            hosts = self.hosts.hosts_by_name(trials)
            from wirespeed.facts.identity import read_identity

            facts: dict[str, dict[str, object]] = {n: dict(f) for n, f in collect(hosts).items()}
            for name, roles in self.hosts.roles(trials).items():
                if name in facts:
                    facts[name]["role"] = ", ".join(sorted(roles))
            # What each host is and how it is set up (docs/sharing.md), in one sh call.
            for name, host in hosts.items():
                identity = read_identity(host)
                if identity and name in facts:
                    facts[name]["identity"] = identity
            info = RunInfo(
                title=self.plan.title,
                plan_path=self.plan.source,
                plan_text=self.plan.text,
                expectations=encode(self.plan.expectations),
                argv=tuple(argv),
                settings=settings,
                started_at=time.time(),
                wirespeed_version=__version__,
                provenance={
                    "hosts": facts,
                    "labs": self.hosts.lab_provenance(),
                    "variants": {
                        name: self.plan.variant(name).state()
                        for name in dict.fromkeys(t.variant for t in trials)
                    },
                    **({"recovered": recovered} if recovered else {}),
                    **({"labels": self.labels} if self.labels else {}),
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
                with VariantStates(journal, self.hosts.labs, devices, real) as states:
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
        """The trial run by its kind (trial_kind.py), through its path's tunnel if it has one:
        a tunnel wraps whatever kind runs through it."""
        from wirespeed.trial_kind import hooks_of, kind_of

        started_at = time.time()
        # A variant that cannot be set up fails before any tunnel is built for it.
        if variant_problem is not None:
            return _not_set_up(trial, started_at, WirespeedError(variant_problem))
        kind = kind_of(trial.test.tool)
        if trial.path.tunnel is not None and kind.moves_traffic:
            on_lab = self.hosts.is_lab_path(trial.path)
            if on_lab and self._tunnel is None:
                return self._through_tunnel(trial, started_at)
            if not on_lab and self._host_tunnel is None:
                return self._through_host_tunnel(trial, started_at)
        try:
            # A traffic kind runs at the trial's MTU; one host only needs its lab still ours.
            lab = self._lab_at_mtu(trial) if kind.moves_traffic else self._lab_checked(trial)
        except WirespeedError as error:
            return _not_set_up(trial, started_at, error)
        run = cast(Callable[[Trial, TrialSite], TrialOutcome], hooks_of(trial.test.tool).run)
        try:
            outcome = run(trial, self._site(trial, lab))
        except NotSetUp as error:
            return _not_set_up(trial, started_at, error)
        return _unless_lab_lost(outcome, lab)

    def _site(self, trial: Trial, lab: Lab | None) -> TrialSite:
        """Where the trial runs, each place found when its kind asks (run/site.py)."""

        def found(place: Callable[[], T]) -> Callable[[], T]:
            def find() -> T:
                try:
                    return place()
                except WirespeedError as error:
                    raise NotSetUp(error.message, error.hint) from error

            return find

        path = trial.path
        return TrialSite(
            endpoints=found(lambda: self._endpoints(path)),
            device=found(lambda: self.hosts.device_host(path)),
            search_path=found(lambda: self._search_path(trial, lab)),
            watched=lambda: self._watched(path),
            sample_interval=self.sample_interval,
            samplers=self._samplers,
            on_tick=self.progress.tick,
            on_step=self.progress.step,
            notice=self.notice,
            notice_once=self._notice_once,
            before_start=self._before_start,
            power=self.plan.power,
            frames=self._frame_journal(),
        )

    def _through_tunnel(self, trial: Trial, started_at: float) -> TrialOutcome:
        """The trial through its path's tunnel, built for it (with its variant's options:
        lab/tunnel.py) and removed after it; its findings gain the tunnel's."""
        from wirespeed.analysis.tunnel_findings import with_tunnel_findings
        from wirespeed.lab.tunnel import lab_tunnel

        assert trial.path.tunnel is not None
        with contextlib.ExitStack() as stack:
            try:
                lab = self._lab_at_mtu(trial)
                assert lab is not None
                tunnel = stack.enter_context(lab_tunnel(lab, trial.path.tunnel))
            except WirespeedError as error:
                return _not_set_up(trial, started_at, error)
            with self._inside_tunnel(lab=tunnel):
                outcome = self._run_one(trial)
            # Before the tunnel goes: its findings read the daemons' logs.
            return with_tunnel_findings(outcome, tunnel.findings(), tunnel.daemons_by_pid())

    def _through_host_tunnel(self, trial: Trial, started_at: float) -> TrialOutcome:
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

            ssh, host = self.plan.hosts[name].ssh, self.hosts.host(name)
            if name not in self._boots:
                self._boots[name] = host_boot_id(host)
            journal_name = LOCAL if ssh is None else str(ssh)
            return HostTunnelEnd(host, journal_name, where, boot=self._boots[name])

        far_where = "DUT" if path.tunnel.ends is TunnelEnds.DUT else "server"
        far_outer = self.plan.hosts[far_name].traffic_address
        assert far_outer is not None  # the plan refuses a server without an address
        with contextlib.ExitStack() as stack:
            try:
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
            with self._inside_tunnel(host=tunnel):
                outcome = self._run_one(trial)
            # Only the DUT's daemon: another host's pids mean nothing in the DUT's samples.
            on_dut = {pid: what for pid, what in tunnel.daemons_by_pid().items() if "DUT" in what}
            outcome = with_tunnel_findings(outcome, tunnel.findings(), on_dut)
        for problem in tunnel.problems:
            self.notice(
                f"tunnel of path {path.name!r}: {problem}; `wirespeed tune restore HOST` "
                "tries again"
            )
        return outcome

    @contextlib.contextmanager
    def _inside_tunnel(
        self, *, lab: LabTunnel | None = None, host: HostTunnel | None = None
    ) -> Iterator[None]:
        """The current trial's traffic goes through the tunnel (its endpoints: _endpoints)
        until the block ends."""
        self._tunnel, self._host_tunnel = lab, host
        try:
            yield
        finally:
            self._tunnel = self._host_tunnel = None

    def _lab_at_mtu(self, trial: Trial) -> Lab | None:
        """The trial's lab (None on real hosts), its links at the MTU the trial runs at."""
        lab = self.hosts.lab_of(trial.path)
        if lab is not None:
            lab.check_still_ours()
            link_mtu = trial.path.link.mtu if trial.path.link else 1500
            # The plan refuses a test MTU and a variant MTU together.
            variant_mtu = self.plan.variant(trial.variant).mtu
            wanted = trial.test.spec.mtu or variant_mtu or link_mtu
            if wanted != lab.mtu:
                lab.set_mtu(wanted)
        return lab

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

        senders = trial.test.settings_as(ForwardingOptions).senders
        legs = real_legs(
            self.hosts.host(path.client),
            self.hosts.host(path.server),
            client_address=client.traffic_address,
            server_address=server.traffic_address,
            nat=nat,
            senders=[self.hosts.host(name) for name in senders],
        )
        return SearchPath(legs, rate, in_lab=False)

    def _lab_checked(self, trial: Trial) -> Lab | None:
        """The trial's lab (None on real hosts), checked to be still this run's."""
        lab = self.hosts.lab_of(trial.path)
        if lab is not None:
            lab.check_still_ours()
        return lab

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
        if self.hosts.is_lab_path(path):
            lab = self.hosts.labs[lab_key(path)]
            by_role = {role.value: host for role, host in lab.device_hosts.items()}
        else:
            names = {"client": path.client, "server": path.server, "dut": path.dut}
            by_role = {r: self.hosts.host(n) for r, n in names.items() if n is not None}
        watched: list[tuple[str, Host]] = []
        for role in self.watch:
            host = by_role.get(role)
            if host is not None and host.name not in hosts:
                hosts[host.name] = host
                watched.append((role, host))
        return watched

    def _endpoints(self, path: PathSpec) -> Endpoints:
        if self.hosts.is_lab_path(path):
            lab = self.hosts.labs[lab_key(path)]
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
            client=self.hosts.host(path.client),
            server=self.hosts.host(path.server),
            target=target,
        )
