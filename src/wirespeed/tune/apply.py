"""Journaled apply and exact restore of tuning changes on one Host.

    session = apply_changes(host, plan.changes, journal)        # journaled, read back
    restore_session(host, journal, session)                    # reverse order, exact
    with tuned(host, changes, journal):                        # restore on any exit
        ...
    recover(journal, connect)                                  # what a crash left behind

Every write goes through Host.write_file (sysfs/procfs knobs) or `ethtool -K` as an argv
list; nothing is written until every change has passed tune/targets.py. The previous
value is read right before its change, journaled (committed) and only then replaced; it
is kept as read, newline and padding included, and written back the same way.

Signals: each change (journal row, write, read-back, state) runs with SIGINT/SIGTERM
held, so a Ctrl-C lands between changes, never between a write and its record; a failure
or signal during apply restores what this apply had changed before it propagates.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from wirespeed.errors import HostError, WirespeedError
from wirespeed.hosts.base import Host
from wirespeed.process_owner import BOOT_ID, owner_alive
from wirespeed.signals import deferred_signals
from wirespeed.tune.journal import Entry, Journal, State
from wirespeed.tune.model import Change, same_mask
from wirespeed.tune.port_restore import port_is_back, read_port, restore_port
from wirespeed.tune.targets import (
    Kind,
    RefusedError,
    Target,
    check_control_interface,
    check_value,
    default_route_interface,
    parse_offloads,
    parse_target,
)


class RestoreError(WirespeedError):
    """Some previous values could not be written back; the journal keeps them open."""


def host_boot_id(host: Host) -> str | None:
    try:
        return host.read_file(BOOT_ID).strip() or None
    except (OSError, WirespeedError):
        return None


def control_interface_of(host: Host) -> str | None:
    """The interface of the control connection: for a device over SSH, the one its route
    to this machine leaves by (from the session's SSH_CONNECTION); else the interface of
    the host's default route (for local and lab hosts, the way the control connection
    would leave); None when there is none."""
    from wirespeed.hosts.ssh import SshHost

    if isinstance(host, SshHost):
        return _ssh_control_interface(host)
    try:
        done = host.run(["ip", "-j", "route", "show", "default"], timeout=10.0)
    except (OSError, TimeoutError, WirespeedError):
        return None
    return default_route_interface(done.stdout) if done.returncode == 0 else None


def _ssh_control_interface(host: Host) -> str | None:
    """dropbear and OpenSSH put "CLIENT_IP CLIENT_PORT SERVER_IP SERVER_PORT" in the
    session's SSH_CONNECTION; the route to CLIENT_IP names the interface (`ip route get`
    as text: busybox's ip has no JSON)."""
    try:
        said = host.run(["sh", "-c", 'echo "$SSH_CONNECTION"'], timeout=10.0)
        client = said.stdout.split()[0] if said.returncode == 0 and said.stdout.split() else ""
        if not client:
            return None
        route = host.run(["ip", "route", "get", client], timeout=10.0)
    except (OSError, TimeoutError, WirespeedError):
        return None
    found = re.search(r"\bdev (\S+)", route.stdout)
    return found.group(1) if found and route.returncode == 0 else None


def check_changes(
    host: Host, changes: Sequence[Change], control_interface: str | None, force: bool
) -> list[Target]:
    """Every change's target and value checked, and its interface present on the host;
    RefusedError for the first that is not."""
    targets = [parse_target(change.path) for change in changes]
    for target, change in zip(targets, changes, strict=True):
        check_value(target, change.new)
    check_control_interface(targets, control_interface, force)
    for name in sorted({t.interface for t in targets if t.interface is not None}):
        if not interface_exists(host, name):
            raise RefusedError(f"no interface {name} in /sys/class/net on {host.name}")
    return targets


def interface_exists(host: Host, name: str) -> bool:
    # Every net device has an mtu attribute; reading it also works in captured trees.
    try:
        host.read_file(f"/sys/class/net/{name}/mtu")
    except (OSError, WirespeedError):
        return False
    return True


def read_current(host: Host, target: Target) -> str:
    """The knob's value as the host shows it now (raw for files: exact restore)."""
    if target.kind is Kind.PORT:
        assert target.interface is not None
        return read_port(host, target.interface).to_json()
    if target.kind is Kind.OFFLOAD:
        state, fixed = _offloads(host, target).get(target.feature or "", (None, False))
        if state is None:
            raise RefusedError(f"{target.interface} has no offload {target.feature}")
        if fixed:
            raise RefusedError(f"{target.interface}'s {target.feature} is fixed")
        return state
    try:
        return host.read_file(target.path)
    except FileNotFoundError:
        raise RefusedError(f"{target.path} does not exist on {host.name}") from None


def write_value(host: Host, target: Target, value: str) -> None:
    check_value(target, value)  # a journal row is input too: it may have been edited
    if target.kind is Kind.PORT:
        from wirespeed.tune.port_state import PortState

        restore_port(host, PortState.from_json(value.strip()))
        return
    if target.kind is Kind.TUNNEL:
        _remove_tunnel_end(host, value)
        return
    if target.kind is Kind.FRAME:
        _remove_frame_file(host, target)
        return
    if target.kind is Kind.OFFLOAD:
        assert target.interface is not None and target.feature is not None
        done = host.run(["ethtool", "-K", target.interface, target.feature, value.strip()])
        if done.returncode != 0:
            raise HostError(
                f"ethtool -K {target.interface} {target.feature} {value.strip()} failed on "
                f"{host.name}: {done.stderr.strip() or done.stdout.strip()}"
            )
        return
    host.write_file(target.path, value if value.endswith("\n") else value + "\n")


def has_value(host: Host, target: Target, wanted: str) -> bool:
    """Whether the knob reads as `wanted` (masks compared as CPU sets, MTU as a number;
    a tunnel end's record: nothing of it is left)."""
    if target.kind is Kind.TUNNEL:
        try:
            return _tunnel_end_gone(host, wanted)
        except (OSError, TimeoutError, WirespeedError):
            return False
    if target.kind is Kind.FRAME:
        try:
            return _frame_file_gone(host, target)
        except (OSError, TimeoutError, WirespeedError):
            return False
    if target.kind is Kind.PORT:
        from wirespeed.tune.port_state import PortState

        try:
            return port_is_back(host, PortState.from_json(wanted.strip()))
        except (OSError, WirespeedError):
            return False
    try:
        now = read_current(host, target)
    except (OSError, WirespeedError):
        return False
    if target.kind in (Kind.SMP_AFFINITY, Kind.RPS, Kind.XPS):
        return same_mask(now.strip(), wanted.strip())
    return now.strip() == wanted.strip()


def _remove_tunnel_end(host: Host, record: str) -> None:
    """Undo a tunnel end (tune/tunnel_undo.py): its daemon, device, socket, directory."""
    from wirespeed.tune.tunnel_undo import TunnelEnd, undo_argv

    end = TunnelEnd.from_json(record.strip())
    done = host.run(undo_argv(end), timeout=30.0)
    if done.returncode != 0:
        raise HostError(
            f"could not remove tunnel {end.dev} on {host.name}: "
            f"{done.stderr.strip() or done.stdout.strip()}"
        )


def _tunnel_end_gone(host: Host, record: str) -> bool:
    from wirespeed.tune.tunnel_undo import TunnelEnd, gone_argv

    return host.run(gone_argv(TunnelEnd.from_json(record.strip())), timeout=15.0).returncode == 0


def _remove_frame_file(host: Host, target: Target) -> None:
    """Remove tcpreplay's frame file (tune/frame_undo.py)."""
    from wirespeed.tune.frame_undo import path_of_target, remove_argv

    path = path_of_target(target.path)
    assert path is not None, "parse_target matched it"
    done = host.run(remove_argv(path), timeout=15.0)
    if done.returncode != 0:
        raise HostError(
            f"could not remove {path} on {host.name}: {done.stderr.strip() or done.stdout.strip()}"
        )


def _frame_file_gone(host: Host, target: Target) -> bool:
    from wirespeed.tune.frame_undo import gone_argv, path_of_target

    path = path_of_target(target.path)
    assert path is not None, "parse_target matched it"
    return host.run(gone_argv(path), timeout=15.0).returncode == 0


def _offloads(host: Host, target: Target) -> dict[str, tuple[str, bool]]:
    assert target.interface is not None
    done = host.run(["ethtool", "-k", target.interface])
    if done.returncode != 0:
        raise HostError(f"ethtool -k {target.interface} failed on {host.name}: {done.stderr}")
    return parse_offloads(done.stdout)


def apply_changes(
    host: Host,
    changes: Sequence[Change],
    journal: Journal,
    *,
    control_interface: str | None = None,
    force: bool = False,
) -> str:
    """Apply changes in order, each journaled first; the session id for restore_session.

    On any failure or signal, what this call changed is restored before it propagates."""
    targets = check_changes(host, changes, control_interface, force)
    boot = host_boot_id(host)
    session = journal.new_session()
    position = 0
    try:
        for target, change in zip(targets, changes, strict=True):
            with deferred_signals():
                position = _apply_one(
                    host,
                    journal,
                    session=session,
                    position=position,
                    boot=boot,
                    target=target,
                    change=change,
                )
    except BaseException:
        with deferred_signals():
            restore_session(host, journal, session)
        raise
    return session


def _apply_one(
    host: Host,
    journal: Journal,
    *,
    session: str,
    position: int,
    boot: str | None,
    target: Target,
    change: Change,
) -> int:
    previous = read_current(host, target)
    check_value(target, previous)  # what cannot be written back must not be changed
    before = _offloads(host, target) if target.kind is Kind.OFFLOAD else {}
    entry = journal.record(
        session=session,
        position=position,
        host=host.name,
        host_boot=boot,
        target=target.path,
        previous=previous,
        new=change.new,
        why=change.why,
    )
    position += 1
    write_value(host, target, change.new)
    if not has_value(host, target, change.new):
        raise HostError(f"{target.path} on {host.name} did not take {change.new.strip()!r}")
    journal.set_state(entry, State.APPLIED)
    if target.kind is Kind.OFFLOAD:
        # Features depend on each other (tx checksumming off takes TSO with it): what the
        # kernel changed besides is journaled too, so restore brings it back.
        after = _offloads(host, target)
        for feature, (state, fixed) in sorted(after.items()):
            old = before.get(feature, (state, fixed))[0]
            if feature == target.feature or fixed or old == state:
                continue
            journal.record(
                session=session,
                position=position,
                host=host.name,
                host_boot=boot,
                target=f"ethtool:{target.interface}:{feature}",
                previous=old,
                new=state,
                why=f"changed by the kernel with {target.feature}",
                state=State.APPLIED,
            )
            position += 1
    return position


@dataclass
class RestoreReport:
    restored: list[Entry] = field(default_factory=list)
    expired: list[Entry] = field(default_factory=list)  # the host rebooted since
    failed: list[tuple[Entry, str]] = field(default_factory=list)


def restore_entries(host: Host, journal: Journal, entries: Sequence[Entry]) -> RestoreReport:
    """Write back each entry's previous value, newest first; then check them all and
    write again what a later write disturbed (dependent offloads). Failures are reported,
    not raised: one stuck knob must not keep the others changed."""
    report = RestoreReport()
    boot = host_boot_id(host)
    done: list[tuple[Entry, Target]] = []
    for entry in sorted(entries, key=lambda e: e.id, reverse=True):
        if entry.host_boot is not None and boot is not None and entry.host_boot != boot:
            journal.set_state(entry.id, State.EXPIRED)
            report.expired.append(entry)
            continue
        try:
            target = parse_target(entry.target)
            write_value(host, target, entry.previous)
        except (OSError, WirespeedError) as error:
            report.failed.append((entry, _message(error)))
            continue
        done.append((entry, target))
    # A knob written by several entries ends at its oldest entry's previous value; only
    # that one can be checked, the newer ones were stepping stones.
    oldest = {target.path: entry.id for entry, target in done}
    for entry, target in done:
        if oldest[target.path] != entry.id:
            journal.set_state(entry.id, State.RESTORED)
            report.restored.append(entry)
            continue
        try:
            if not has_value(host, target, entry.previous):
                write_value(host, target, entry.previous)
            if not has_value(host, target, entry.previous):
                report.failed.append((entry, f"still not {entry.previous.strip()!r}"))
                continue
        except (OSError, WirespeedError) as error:
            report.failed.append((entry, _message(error)))
            continue
        journal.set_state(entry.id, State.RESTORED)
        report.restored.append(entry)
    return report


def _message(error: BaseException) -> str:
    return error.message if isinstance(error, WirespeedError) else str(error)


def restore_session(host: Host, journal: Journal, session: str) -> RestoreReport:
    report = restore_entries(host, journal, journal.open_entries(session=session))
    _raise_on_failures(report)
    return report


def _raise_on_failures(report: RestoreReport) -> None:
    if report.failed:
        lines = "; ".join(
            f"{e.target} (was {e.previous.strip()!r}): {why}" for e, why in report.failed
        )
        raise RestoreError(
            f"could not restore {len(report.failed)} value(s): {lines}",
            hint="they stay in the journal; `wirespeed tune restore` tries again",
        )


@contextlib.contextmanager
def tuned(
    host: Host,
    changes: Sequence[Change],
    journal: Journal,
    *,
    control_interface: str | None = None,
    force: bool = False,
) -> Iterator[str]:
    """Changes applied for the body of a with-block and restored when it ends, however
    it ends (an exception, Ctrl-C, SIGTERM turned into an exception)."""
    session = apply_changes(
        host, changes, journal, control_interface=control_interface, force=force
    )
    try:
        yield session
    finally:
        with deferred_signals():
            restore_session(host, journal, session)


@dataclass
class Recovery:
    report: RestoreReport = field(default_factory=RestoreReport)
    unreachable: dict[str, str] = field(default_factory=dict)  # host -> why
    busy: dict[str, str] = field(default_factory=dict)  # host -> the owner still running

    @property
    def clean(self) -> bool:
        return not (self.unreachable or self.busy or self.report.failed)


def recover(journal: Journal, connect: Callable[[str], Host], host: str | None = None) -> Recovery:
    """Restore what wirespeed processes that are gone left changed (of one host, or all).

    connect(name) returns the Host or raises WirespeedError when it cannot be reached;
    rows of a process that still runs (or ran on another machine) are left alone."""
    recovery = Recovery()
    by_host: dict[str, list[Entry]] = {}
    for entry in journal.open_entries(host=host):
        if entry.owner == journal.owner:
            continue  # this process's own, still in use
        if owner_alive(entry.owner) is not False:
            recovery.busy[entry.host] = entry.owner
            continue
        by_host.setdefault(entry.host, []).append(entry)
    with deferred_signals():
        for name, entries in by_host.items():
            try:
                target_host = connect(name)
            except (OSError, WirespeedError) as error:
                recovery.unreachable[name] = _message(error)
                continue
            found = restore_entries(target_host, journal, entries)
            recovery.report.restored += found.restored
            recovery.report.expired += found.expired
            recovery.report.failed += found.failed
    return recovery


def forget(journal: Journal, host: str) -> list[Entry]:
    """Drop a host's open rows without writing anything (the host is gone for good)."""
    entries = journal.open_entries(host=host)
    for entry in entries:
        journal.set_state(entry.id, State.FORGOTTEN)
    return entries
