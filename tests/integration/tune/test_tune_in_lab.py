"""Tuning a real veth in a lab namespace: the knobs take effect and come back exactly,
also when the applying process is stopped with SIGTERM or killed with SIGKILL."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

import pytest
from tune_lab import (
    IFACE,
    MakeLab,
    add_veth,
    knobs,
    lab_changes,
    offloads,
    start_applier,
)

from support.cli import run_cli
from wirespeed.hosts.netns import NetnsHost
from wirespeed.model import Role
from wirespeed.tune import (
    Change,
    Journal,
    RefusedError,
    State,
    apply_changes,
    control_interface_of,
    restore_session,
)
from wirespeed.tune.model import mask_of, same_mask
from wirespeed.tune.targets import parse_offloads

pytestmark = pytest.mark.root


@pytest.fixture
def host(make_lab: MakeLab) -> NetnsHost:
    lab = make_lab("bridge")
    namespace = lab.namespaces[Role.CLIENT]
    add_veth(namespace)
    return NetnsHost(namespace)


def ip_link_mtu(host: NetnsHost) -> int:
    shown = json.loads(host.run(["ip", "-j", "link", "show", "dev", IFACE]).stdout)
    return int(shown[0]["mtu"])


def wait_for_applied(process: subprocess.Popen[str]) -> None:
    assert process.stdout is not None
    line = process.stdout.readline()
    assert line == "applied\n", process.stderr.read() if process.stderr else line


def test_rps_xps_mtu_and_offloads_take_effect_and_are_restored_exactly(
    host: NetnsHost, tmp_path: Path
) -> None:
    before = knobs(host)
    last = mask_of(((os.cpu_count() or 1) - 1,))
    with Journal.open(tmp_path / "s.db") as journal:
        session = apply_changes(host, lab_changes(host), journal)
        now = knobs(host)
        assert same_mask(now[f"/sys/class/net/{IFACE}/queues/rx-0/rps_cpus"].strip(), last)
        assert same_mask(now[f"/sys/class/net/{IFACE}/queues/tx-0/xps_cpus"].strip(), last)
        assert ip_link_mtu(host) == 9000
        features = offloads(host)
        assert features["tcp-segmentation-offload"][0] == "off"
        gro_before = parse_offloads(before["ethtool -k"])["generic-receive-offload"][0]
        assert features["generic-receive-offload"][0] != gro_before
        # TSO's children went off with it; the journal knows, so restore brings them back.
        targets = {e.target for e in journal.entries(session)}
        assert f"ethtool:{IFACE}:tx-tcp-segmentation" in targets

        restore_session(host, journal, session)
        assert knobs(host) == before
        assert ip_link_mtu(host) == int(before[f"/sys/class/net/{IFACE}/mtu"])
        assert {e.state for e in journal.entries(session)} == {State.RESTORED}


def test_the_interface_of_the_default_route_keeps_its_mtu_unless_forced(
    host: NetnsHost, tmp_path: Path
) -> None:
    host.run(["ip", "route", "add", "default", "dev", IFACE])
    assert control_interface_of(host) == IFACE
    change = Change(f"/sys/class/net/{IFACE}/mtu", None, "1400", "smaller")
    with Journal.open(tmp_path / "s.db") as journal:
        with pytest.raises(RefusedError, match="control connection"):
            apply_changes(host, [change], journal, control_interface=control_interface_of(host))
        session = apply_changes(
            host, [change], journal, control_interface=control_interface_of(host), force=True
        )
        assert ip_link_mtu(host) == 1400
        restore_session(host, journal, session)


def test_sigterm_while_tuned_restores_everything(host: NetnsHost, tmp_path: Path) -> None:
    before = knobs(host)
    db = tmp_path / "s.db"
    process = start_applier(db, host.name)
    try:
        wait_for_applied(process)
        assert ip_link_mtu(host) == 9000
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 143
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert knobs(host) == before
    with Journal.open(db) as journal:
        assert journal.open_entries() == []


def test_after_sigkill_tune_restore_brings_everything_back(host: NetnsHost, tmp_path: Path) -> None:
    before = knobs(host)
    db = tmp_path / "s.db"
    process = start_applier(db, host.name)
    try:
        wait_for_applied(process)
        process.kill()
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert ip_link_mtu(host) == 9000  # nobody restored it
    with Journal.open(db) as journal:
        assert len(journal.open_entries(host=host.name)) >= 6

    status, out = run_restore(host.name, db)
    assert status == 0, out
    assert f"{host.name}: /sys/class/net/{IFACE}/mtu restored to" in out
    assert knobs(host) == before
    with Journal.open(db) as journal:
        assert journal.open_entries() == []


def run_restore(host_name: str, db: Path) -> tuple[int, str]:
    status, out, err = run_cli("tune", "restore", host_name, "--db", str(db))
    return status, out + err
