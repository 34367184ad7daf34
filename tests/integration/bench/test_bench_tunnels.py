"""VPN tunnels between the foreign bench's machines, as a user runs them: OpenVPN and
WireGuard from the laptop to the router (which runs iperf at its tunnel address) and from
the laptop through the router's NAT to the workstation, each trial against its tunnel's
ceiling; nothing of a tunnel left on any machine afterwards, nor after a SIGKILL once the
next run has started; a router without WireGuard's tools refused with what to install.

The bench's links are Fast Ethernet here: at a gigabit the tunnels' userspace crypto on
this machine's two cores, not the link, would set the figure (docs/benchmarks.md).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from bench_runs import HOSTS, WIRESPEED, MakeBench, run_plan

from support.foreign_bench import ForeignBench
from wirespeed.store import Store
from wirespeed.tune.journal import Entry, Journal, State
from wirespeed.tune.tunnel_undo import TunnelEnd

pytestmark = [pytest.mark.root]

DURATION = 2
# Loose: every packet is encrypted in userspace twice on this machine's two cores beside
# both iperf ends and whatever else runs (the lab's tunnel tests allow as much).
BELOW = 0.40
ABOVE = 0.01  # rounding of byte counts over a measured span

TUNNEL_PATHS = """\
paths:
  - {name: ovpn-dut, topology: endpoint, client: laptop, server: router, link: fe,
     tunnel: {kind: openvpn}}
  - {name: wg-dut, topology: endpoint, client: laptop, server: router, link: fe,
     tunnel: {kind: wireguard}}
  - {name: ovpn-through, topology: nat, client: laptop, server: workstation, dut: router,
     link: fe, tunnel: {kind: openvpn, ends: through}}
  - {name: wg-through, topology: nat, client: laptop, server: workstation, dut: router,
     link: fe, tunnel: {kind: wireguard, ends: through}}
"""


def tunnel_bench(make: MakeBench) -> ForeignBench:
    return make(tunnel_tools=True, link_mbit=100, forward=None)


def journal_rows(db: Path) -> list[Entry]:
    """Every tunnel end the runs journaled, whatever its state."""
    from sqlalchemy import select

    from wirespeed.store import journal_table

    table = journal_table.tune_journal
    with Store.open(str(db)) as store:
        with store.connect() as conn:
            sessions = conn.execute(
                select(table.c.session).where(table.c.target.like("tunnel:%"))
            ).scalars()
            wanted = list(dict.fromkeys(sessions))
        journal = Journal(store)
        return [entry for session in wanted for entry in journal.entries(session)]


def leftovers(bench: ForeignBench, ends: list[TunnelEnd]) -> list[str]:
    """What of these tunnel ends is still on the bench: a process of theirs in any of
    its namespaces, a device, a socket, a key directory."""
    found: list[str] = []
    for namespace in bench.namespaces:
        pids = subprocess.run(
            ["ip", "netns", "pids", namespace], capture_output=True, text=True, check=False
        ).stdout.split()
        for pid in pids:
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
            except OSError:
                continue
            for end in ends:
                if end.dev.encode() in cmdline or end.directory.encode() in cmdline:
                    found.append(f"process {pid} in {namespace}: {cmdline.decode()[:80]}")
        links = subprocess.run(
            ["ip", "-n", namespace, "-o", "link"], capture_output=True, text=True, check=False
        ).stdout
        found += [f"device {e.dev} in {namespace}" for e in ends if f" {e.dev}:" in links]
    for end in ends:
        for path in (end.directory, end.socket):
            if os.path.exists(path):
                found.append(path)
    return found


def measure(bench: ForeignBench, directory: Path) -> tuple[dict[str, Any], list[str]]:
    """The run's report and what in it is off: a trial that failed, a figure outside
    its bound of the tunnel's ceiling, a ceiling that is not the tunnel's."""
    directory.mkdir()
    plan = (
        f"title: tunnels on the bench\n{HOSTS}{TUNNEL_PATHS}"
        f"tests:\n  - {{id: tcp, protocol: tcp, duration: {DURATION}}}\n"
    )
    done = run_plan(bench, directory, plan)
    report = subprocess.run(
        [*WIRESPEED, "report", "--db", str(directory / "runs.db"), "--format", "json"],
        capture_output=True,
        text=True,
        check=True,
    )
    document: dict[str, Any] = json.loads(report.stdout)
    problems = [] if done.returncode == 0 else [f"exit {done.returncode}: {done.stderr[-2000:]}"]
    for trial in document["trials"]:
        key = trial["key"]
        if trial["status"] != "ok":
            problems.append(f"{key}: {trial['status']}: {trial['reason']}")
            continue
        ceiling = trial["ceiling"]["bits_per_second"]
        # The tunnel's, not the link's 94.1: WireGuard 100 x 1368/1518, OpenVPN's mssfix.
        assert 89e6 < ceiling < 91e6, (key, ceiling)
        (flow,) = [f for f in trial["flows"] if f["measured"]]
        if not ceiling * (1 - BELOW) <= flow["goodput_bps"] <= ceiling * (1 + ABOVE):
            problems.append(f"{key}: {flow['goodput_bps'] / 1e6:.1f} of {ceiling / 1e6:.1f}")
        print(f"{key}: {flow['goodput_bps'] / 1e6:.1f} Mbit/s of {ceiling / 1e6:.1f}")
    return document, problems


def test_openvpn_and_wireguard_to_and_through_the_router_reach_their_ceilings(
    foreign_bench: MakeBench, tmp_path: Path
) -> None:
    bench = tunnel_bench(foreign_bench)
    document, problems = measure(bench, tmp_path / "first")
    if problems:  # other work on this machine's two cores can starve a trial for a second
        print(f"measured again: {problems}")
        document, problems = measure(bench, tmp_path / "again")
    assert not problems, problems
    said = json.dumps(document)
    assert "OpenVPN tunnel client to DUT: inner MTU 1500" in said
    assert "WireGuard tunnel client to server: inner MTU 1420" in said
    assert "WireGuard on the DUT ran in userspace (wireguard-go)" in said
    assert "OpenVPN on the DUT moved every packet through userspace" in said
    assert "tunnel addresses: 198.18.9.2 on the client" in said
    rows = [row for db in tmp_path.glob("*/runs.db") for row in journal_rows(db)]
    assert all(r.state is State.RESTORED for r in rows), rows
    assert len(rows) in (8, 16)  # both ends of four tunnels, per run
    hosts = {r.host for r in rows}
    assert hosts == {"root@pc", "root@router", "root@workstation"}, hosts
    assert leftovers(bench, [TunnelEnd.from_json(r.previous) for r in rows]) == []


def test_a_run_stopped_with_its_tunnel_up_removes_it_and_a_killed_one_leaves_it_to_the_next(
    foreign_bench: MakeBench, tmp_path: Path
) -> None:
    bench = tunnel_bench(foreign_bench)
    (tmp_path / "plan.yaml").write_text(
        f"title: stopped\n{HOSTS}paths:\n"
        "  - {name: wg, topology: endpoint, client: laptop, server: router, link: fe,\n"
        "     tunnel: {kind: wireguard}}\n"
        "  - {name: plain, topology: nat, client: laptop, server: workstation, dut: router}\n"
        "tests:\n  - {id: tcp, protocol: tcp, duration: 30, paths: [wg]}\n"
        "  - {id: plain, protocol: tcp, duration: 1, paths: [plain]}\n"
    )
    db = tmp_path / "runs.db"
    argv = [*WIRESPEED, "run", str(tmp_path / "plan.yaml"), "--ssh-config", str(bench.ssh_config)]
    argv += ["--db", str(db), "-q", "--only"]

    def tunnel_up(known: list[TunnelEnd]) -> tuple[subprocess.Popen[bytes], list[TunnelEnd]]:
        run = subprocess.Popen([*argv, "tcp"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            ends = wait_for_tunnel_up(db, run, known)
            time.sleep(1.0)  # the traffic through it has started
        except BaseException:
            run.kill()
            run.wait()
            raise
        return run, ends

    stopped, ends = tunnel_up([])
    stopped.send_signal(signal.SIGTERM)
    assert stopped.wait(timeout=60) != 0
    assert leftovers(bench, ends) == []
    killed, ends = tunnel_up(ends)
    killed.send_signal(signal.SIGKILL)
    killed.wait()
    assert leftovers(bench, ends) != [], "the tunnel was up when the run was killed"
    after = subprocess.run(
        [*argv, "plain"], capture_output=True, text=True, timeout=120, check=False
    )
    assert after.returncode == 0, after.stderr[-2000:]
    rows = journal_rows(db)
    assert len(rows) == 4 and all(r.state is State.RESTORED for r in rows), rows
    with Store.open(str(db), read_only=True) as store:
        recovered = store.load_run(None).info.provenance.get("recovered", [])
    assert sum("removed: its daemon, device and key directory" in r for r in recovered) == 2
    assert leftovers(bench, [TunnelEnd.from_json(r.previous) for r in rows]) == []


def wait_for_tunnel_up(
    db: Path, run: subprocess.Popen[bytes], known: list[TunnelEnd]
) -> list[TunnelEnd]:
    """The two ends of the run's tunnel (not among known), once both daemons' pid files
    are written."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert run.poll() is None, run.stderr.read().decode() if run.stderr else ""
        if db.exists():
            rows = journal_rows(db)
            ends = [e for e in (TunnelEnd.from_json(r.previous) for r in rows) if e not in known]
            pids = [p for e in ends for p in Path(e.directory).glob("*.pid")]
            if len(ends) == 2 and len(pids) == 2:
                return ends
        time.sleep(0.1)
    raise AssertionError("the tunnel never came up")


def test_a_router_without_wireguard_is_refused_with_the_package_to_install(
    foreign_bench: MakeBench, tmp_path: Path
) -> None:
    bench = foreign_bench(forward=None)
    plan = (
        f"title: no wireguard\n{HOSTS}paths:\n"
        "  - {name: wg, topology: endpoint, client: laptop, server: router,\n"
        "     tunnel: {kind: wireguard}}\n"
        "tests: [{id: tcp, duration: 1}]\n"
    )
    done = run_plan(bench, tmp_path, plan)
    assert done.returncode == 3, done.stderr
    assert "wg is not installed on router (root@192.168.7.1:22)" in done.stderr
    assert "opkg install wireguard-tools" in done.stderr
    assert "Traceback" not in done.stderr
