"""A plan's variants applied to the lab's own links and to real hosts, and undone.

    with VariantStates(journal, labs, devices, real) as states:  # restores on exit
        problem = states.enter(variant)              # None, or why it could not be applied
    recover_left_changes(journal)                    # what a killed run left changed

RPS, XPS and offloads go through the tune journal (tune/apply.py): every previous value
is committed to the store before its knob is written, and restored exactly when the
variant ends, at the end of the run, on Ctrl-C or SIGTERM, or, after a SIGKILL, by the
next run's recover_left_changes. On real hosts (link_variants.py) they go on the DUT
over SSH, and the MTU on the DUT and the path's ends, through the same journal.

The MTU is set with Lab.set_mtu, not journaled: it changes every lab link at once and
retunes the shapers for the new packet size, which a journal row (one file, one value)
cannot express, and it only ever touches the lab's own namespaces. Those are deleted
with everything in them at teardown, and a lab that a killed run left behind is deleted
by the next Lab.up of that name, so no MTU of the lab outlives the run. The MTU is still
put back when the variant ends, so the next variant starts from the lab as it was built.

Cores online, the cpufreq governor and the maximum frequency (cpu_variants.py) act on a
real DUT over SSH, never on a lab (whose DUT shares this machine's CPUs); they go through
the same journal, under the name the device is reached by (`root@192.168.2.1`), so that
recovery after a crash logs in to it again.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from wirespeed.errors import HostError, UsageError, WirespeedError
from wirespeed.hosts.base import Host
from wirespeed.plan.plan import Variant
from wirespeed.run.link_variants import changes_for
from wirespeed.signals import deferred_signals

if TYPE_CHECKING:
    from wirespeed.hosts.ssh_connection import SshSettings
    from wirespeed.lab.lab import Lab
    from wirespeed.run.link_variants import LinkTarget
    from wirespeed.store import Store
    from wirespeed.tune.journal import Journal
    from wirespeed.tune.model import TunePlan


def journal_for(store: Store) -> Journal:
    """The tune journal in an open store, its table created if the store lacks it.

    The table joins the store's schema when tune.journal is first imported; a store that
    was opened before that (as a run's is) has not created it yet."""
    from wirespeed.store import journal_table
    from wirespeed.tune.journal import Journal

    journal = Journal(store)
    # A writer's connection: one creator at a time on SQLite.
    with store.connect(write=True) as conn, conn.begin():
        journal_table.tune_journal.create(conn, checkfirst=True)
    return journal


def lab_interfaces(lab: Lab) -> dict[str, list[str]]:
    """Namespace -> the lab's own veth ends in it: the links client, DUT and server (and
    the endpoint topology's switch) send and receive on."""
    found: dict[str, list[str]] = {}
    for port in lab.plan.veth_ports:
        found.setdefault(lab.namespaces[port.node], []).append(port.interface)
    return found


class VariantStates(contextlib.AbstractContextManager["VariantStates"]):
    """Applies one variant at a time to the labs of a run; restores it on leaving it,
    and whatever is applied when the with-block ends, however it ends."""

    def __init__(
        self,
        journal: Journal,
        labs: Mapping[Any, Lab],  # keyed as the runner keys them; only the labs count
        devices: Sequence[Host] = (),
        real: Sequence[LinkTarget] = (),
    ) -> None:
        """devices: the DUTs over SSH whose CPUs the variants set (cores online,
        governor, maximum frequency); real: the real hosts of the run's paths whose links
        the variants set (link_variants.py); each named as recovery reaches it again."""
        self.journal = journal
        self.labs = labs
        self.devices = tuple(devices)
        self.real = tuple(real)
        self.current: str | None = None
        self._sessions: list[tuple[Host, str]] = []
        self._mtus: dict[str, int] = {}  # lab name -> its MTU before the variant set one
        self._problem: str | None = None
        # Host name -> what `tune suggest` proposed there, for a variant with `tune:`.
        self.suggested: dict[str, TunePlan] = {}

    def __exit__(self, *exc_info: object) -> None:
        failure = self.leave()
        # A block that raised keeps its own exception: the restore's would hide it.
        if failure is not None and exc_info[1] is None:
            raise failure

    def enter(self, variant: Variant) -> str | None:
        """Switch to variant (nothing to do if it is the current one); None when it is in
        force, else why not, and then nothing of it is."""
        if variant.name == self.current:
            return self._problem
        failure = self.leave()
        if failure is not None:
            # The previous state could not be put back: measuring now would measure a mix.
            self.current, self._problem = variant.name, failure.message
            return self._problem
        self.current, self._problem = variant.name, None
        try:
            self._apply(variant)
        except WirespeedError as error:
            self._problem = f"variant {variant.name!r} could not be applied: {error.message}"
            undone = self.leave()
            self.current = variant.name
            if undone is not None:
                self._problem += f"; {undone.message}"
        return self._problem

    def _apply(self, variant: Variant) -> None:
        from wirespeed.hosts.netns import NetnsHost
        from wirespeed.tune.apply import apply_changes

        if variant.mtu is not None:
            for lab in self.labs.values():
                with deferred_signals():
                    self._mtus.setdefault(lab.name, lab.mtu)
                    if lab.mtu != variant.mtu:
                        lab.set_mtu(variant.mtu)
        for lab in self.labs.values():
            for namespace, interfaces in lab_interfaces(lab).items():
                # An SSH DUT is tuned over SSH, as a real device would be.
                ssh = lab.ssh_host if namespace == lab.dut_namespace else None
                host: Host = ssh if ssh is not None else NetnsHost(namespace)
                changes = changes_for(variant, host, interfaces)
                if not changes:
                    continue
                # The lab's namespaces are not reached over a network: no control link
                # to protect. apply_changes restores its own part if it fails.
                session = apply_changes(host, changes, self.journal)
                self._sessions.append((host, session))
        if variant.changes_links and self.real:
            from wirespeed.run.link_variants import apply_link_variant

            for target in self.real:
                for session in apply_link_variant(variant, target, self.journal):
                    self._sessions.append((target.host, session))
        if variant.changes_cpus:
            from wirespeed.run.cpu_variants import cpu_changes_for

            for device in self.devices:
                changes = cpu_changes_for(variant, device)
                if changes:
                    self._sessions.append((device, apply_changes(device, changes, self.journal)))
        if variant.tune is not None:
            for lab in self.labs.values():
                dut: Host = lab.ssh_host or NetnsHost(lab.dut_namespace)
                # The lab's DUT has the lab's veths only: virtual NICs are its NICs.
                self._apply_suggested(dut, lab_nics=True)
            for device in self.devices:
                self._apply_suggested(device, lab_nics=False)

    def _apply_suggested(self, host: Host, *, lab_nics: bool) -> None:
        """What `tune suggest` proposes for host, from its facts read now."""
        from wirespeed.facts import HostSource, collect
        from wirespeed.tune.apply import apply_changes
        from wirespeed.tune.suggest import suggest

        plan = suggest(collect(HostSource(host), host, include_virtual=lab_nics))
        self.suggested[host.name] = plan
        if plan.changes:
            self._sessions.append((host, apply_changes(host, plan.changes, self.journal)))

    def leave(self) -> WirespeedError | None:
        """Restore the current variant's changes, newest first; the error if some value
        could not be written back (it stays in the journal for the next start)."""
        from wirespeed.tune.apply import RestoreError, restore_session

        problems: list[str] = []
        with deferred_signals():
            while self._sessions:
                host, session = self._sessions.pop()
                try:
                    restore_session(host, self.journal, session)
                except (RestoreError, HostError, OSError) as error:
                    problems.append(
                        error.message if isinstance(error, WirespeedError) else str(error)
                    )
            for lab in self.labs.values():
                before = self._mtus.pop(lab.name, None)
                if before is not None and lab.mtu != before:
                    try:
                        lab.set_mtu(before)
                    except WirespeedError as error:
                        problems.append(f"MTU of lab {lab.name}: {error.message}")
        self.current = None
        if problems:
            return RestoreError("; ".join(problems), hint="`wirespeed tune restore` tries again")
        return None


def recover_left_changes(
    journal: Journal, settings: SshSettings | None = None, *, strict: bool = True
) -> list[str]:
    """Restore what a killed wirespeed left changed; what was done, for the user.

    settings: how the run reaches its SSH hosts (--ssh-config), so that recovery logs in
    to a device the same way. Rows of a lab namespace, or of a port's namespace, that no
    longer exists are dropped: the knobs went with it (a port's own row, restored first,
    brought the port back with its MTU). strict=False leaves the rows of a device it
    cannot reach for a later call (a device behind a port the run has yet to move).
    Anything else that cannot be restored refuses the run (UsageError with what to do):
    measuring on top of someone's leftover tuning would measure the wrong thing."""
    from wirespeed.lab.naming import parse_namespace
    from wirespeed.tune.apply import forget, recover
    from wirespeed.tune.hosts import connections

    # A device tuned over SSH (`wirespeed tune apply user@host`) is reached with the
    # user's own SSH configuration and known hosts, or the run's (`--ssh-config`).
    with connections(settings) as connect:
        recovery = recover(journal, connect)
    from wirespeed.tune.frame_undo import removed_words as frame_removed_words
    from wirespeed.tune.ports import restored_words
    from wirespeed.tune.tunnel_undo import removed_words

    done = [
        restored_words(entry.target, entry.previous)
        or removed_words(entry.target, entry.previous, entry.host)
        or frame_removed_words(entry.target, entry.host)
        or f"restored {entry.target} on {entry.host} to {entry.previous.strip()!r}"
        for entry in recovery.report.restored
    ]
    done += [
        f"{entry.target} on {entry.host}: the host rebooted since"
        for entry in recovery.report.expired
    ]
    unreachable = dict(recovery.unreachable)
    for name in list(unreachable):
        if parse_namespace(name) is not None or _port_namespace_gone(name):
            forgotten = forget(journal, name)
            done.append(f"{len(forgotten)} change(s) in {name}: the namespace is gone")
            del unreachable[name]
    if not strict:
        unreachable = {}
    if unreachable or recovery.report.failed:
        lines = [f"{name}: {why}" for name, why in unreachable.items()]
        lines += [
            f"{e.target} on {e.host} (was {e.previous.strip()!r}): {why}"
            for e, why in recovery.report.failed
        ]
        raise UsageError(
            "a previous wirespeed process left changes that could not be restored: "
            + "; ".join(lines),
            hint="`wirespeed tune restore [HOST]` tries again; `wirespeed tune restore HOST "
            "--forget` drops the rows of a host that is gone for good",
        )
    return done


def _port_namespace_gone(name: str) -> bool:
    """A port's namespace (tune/ports.py port_namespace: `enp3s0-port`) that is gone."""
    from wirespeed.hosts.netns import namespace_exists

    return name.endswith("-port") and "@" not in name and not namespace_exists(name)
