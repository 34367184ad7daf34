"""Hosts that are ports of this machine: moved into namespaces for the run, measured
through a router against the link's truth, and given back exactly as they were, also
after a SIGKILL; a port that carries the way in is refused."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from lab_runs import WIRESPEED

from support.cli import run_cli
from support.port_bench import PORT_A_SYSCTLS, PortBench, ip, port_bench

pytestmark = [pytest.mark.root]

TCP_CEILING = 941.5e6  # LIMITS.md: TCP at 1 GbE, MTU 1500
TCP_CEILING_1400 = 1e9 * (1400 - 52) / (1400 + 38)  # 937.4 Mbit/s at MTU 1400


@pytest.fixture
def bench() -> Iterator[PortBench]:
    with port_bench() as made:
        yield made


def port_namespaces(bench: PortBench) -> list[str]:
    names = [line.split()[0] for line in ip("netns", "list").splitlines() if line.strip()]
    return [n for n in names if n in (f"{port}-port" for port in bench.ports)]


def test_two_ports_through_a_router_measure_the_link_and_come_back_as_they_were(
    bench: PortBench, tmp_path: Path
) -> None:
    plan, db = tmp_path / "plan.yaml", tmp_path / "runs.db"
    plan.write_text(bench.plan(duration=3))
    before = bench.state()
    status, out, err = run_cli("run", str(plan), "--db", str(db), "-q")
    assert status == 0, err
    assert bench.state() == before
    assert all(
        bench.state()[bench.port_a]["sysctls"][f"/proc/sys/net/{key.format(bench.port_a)}"]
        == value + "\n"
        for key, value in PORT_A_SYSCTLS.items()
    )
    assert port_namespaces(bench) == []
    status, report, err = run_cli("report", out.strip(), "--db", str(db), "--format", "json")
    (trial,) = json.loads(report)["trials"]
    goodput = trial["flows"][0]["goodput_bps"]
    # Loose: both iperf ends and the router share this machine's two cores with whatever
    # else runs (CI's soak tests beside: 0.93 of the ceiling once). A figure above the
    # link's ceiling would be wrong on any machine; benchmarks.md has a quiet machine's.
    assert 0.75 * TCP_CEILING < goodput < 1.01 * TCP_CEILING, goodput


def run_three_ports(tmp_path: Path, label: str) -> list[dict[str, Any]]:
    """One run of the three ports' plan: its trials as the JSON report has them."""
    with port_bench(second_lan=True) as bench:
        plan, db = tmp_path / f"{label}.yaml", tmp_path / f"{label}.db"
        plan.write_text(bench.plan_of_three())
        before = bench.state()
        status, out, err = run_cli("run", str(plan), "--db", str(db), "-q")
        assert status == 0, err
        assert bench.state() == before
        assert port_namespaces(bench) == []
        _, report, _ = run_cli("report", out.strip(), "--db", str(db), "--format", "json")
    trials: list[dict[str, Any]] = json.loads(report)["trials"]
    assert len(trials) == 2
    return trials


def test_three_ports_two_lans_to_a_wan(tmp_path: Path) -> None:
    # Each path against its own ceiling: the second LAN's port has MTU 1400, so its TCP
    # carries 1348 of every 1438 bytes on the wire.
    ceilings = {"lan": TCP_CEILING, "lan2": TCP_CEILING_1400}

    def share(trial: dict[str, Any]) -> float:
        ceiling = ceilings[trial["path"]["name"]]
        assert trial["ceiling"]["bits_per_second"] == pytest.approx(ceiling, rel=1e-4)
        return float(trial["flows"][0]["goodput_bps"]) / ceiling

    trials = run_three_ports(tmp_path, "first")
    if any(share(trial) < 0.9 for trial in trials):
        # 2-second trials through three veths on a shared 2-core machine: measured down
        # to 0.47 of the ceiling with a load average of 12 (docs/benchmarks.md has a quiet
        # machine's figures); once more, and the floor stays.
        trials = run_three_ports(tmp_path, "again")
    for trial in trials:
        assert 0.5 < share(trial) < 1.01, trial


def start_and_wait_for_traffic(
    bench: PortBench, plan: Path, db: Path
) -> tuple[subprocess.Popen[bytes], list[int]]:
    """A run started, once an iperf runs in each port's namespace; and their PIDs."""
    process = subprocess.Popen(
        [*WIRESPEED, "run", str(plan), "--db", str(db), "-q"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    while not all(ip("netns", "pids", f"{port}-port", check=False).split() for port in bench.ports):
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise AssertionError("the ports were never moved, or the run ended first")
        time.sleep(0.1)
    pids = [int(p) for port in bench.ports for p in ip("netns", "pids", f"{port}-port").split()]
    return process, pids


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_an_interrupted_run_gives_the_ports_back(
    bench: PortBench, tmp_path: Path, sig: signal.Signals
) -> None:
    plan = tmp_path / "plan.yaml"
    plan.write_text(bench.plan(duration=60))
    before = bench.state()
    process, _ = start_and_wait_for_traffic(bench, plan, tmp_path / "db")
    process.send_signal(sig)
    try:
        _, stderr = process.communicate(timeout=30)
    finally:
        process.kill()
    assert b"Traceback" not in stderr
    assert bench.state() == before
    assert port_namespaces(bench) == []


@pytest.mark.parametrize("next_start", ["run", "tune restore"])
def test_a_sigkilled_run_leaves_the_ports_moved_and_the_next_start_gives_them_back(
    bench: PortBench, tmp_path: Path, next_start: str
) -> None:
    long_plan, short_plan, db = tmp_path / "long.yaml", tmp_path / "short.yaml", tmp_path / "db"
    long_plan.write_text(bench.plan(duration=60))
    short_plan.write_text(bench.plan(duration=1))
    before = bench.state()
    # Killed once traffic flows: an iperf runs in each port's namespace.
    process, left = start_and_wait_for_traffic(bench, long_plan, db)
    process.kill()
    process.communicate()
    assert sorted(port_namespaces(bench)) == sorted(f"{port}-port" for port in bench.ports)
    assert not any(bench.in_this_namespace(port) for port in bench.ports)

    if next_start == "run":
        status, _, err = run_cli("run", str(short_plan), "--db", str(db), "-q")
        assert status == 0, err
    else:
        status, out, err = run_cli("tune", "restore", "local", "--db", str(db))
        assert status == 0, err
        assert f"local: port {bench.port_a} is back as it was: {bench.own_subnet}, " in out
        assert f"local: port {bench.port_b} is back as it was: no address, MTU 1500, down" in out
    assert bench.state() == before
    assert port_namespaces(bench) == []
    assert not _still_running(left), "a killed run's iperf"


def _still_running(pids: list[int], within: float = 5.0) -> list[int]:
    """Those of pids still running after `within` s: a killed program whose new parent
    (this machine's init) has not reaped it yet is a zombie, ended, not running."""
    deadline = time.monotonic() + within
    while True:
        running = []
        for pid in pids:
            try:
                state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except (OSError, IndexError):
                continue
            if state != "Z":
                running.append(pid)
        if not running or time.monotonic() > deadline:
            return running
        time.sleep(0.1)


def addresses_and_routes(namespace: str, port: str) -> tuple[list[str], str]:
    (link,) = json.loads(ip("-n", namespace, "-j", "addr", "show", "dev", port))
    found = [f"{a['local']}/{a['prefixlen']}" for a in link["addr_info"]]
    return found, ip("-n", namespace, "-4", "-j", "route", "show", "table", "all", "dev", port)


def test_a_port_with_this_machines_default_route_is_refused(tmp_path: Path) -> None:
    """wirespeed runs in a namespace of the test's whose default route leaves by a port."""
    with port_bench() as bench:
        host = f"{bench.router}h"
        ip("netns", "add", host)
        try:
            ip("link", "set", "dev", bench.port_a, "netns", host)
            ip("-n", host, "addr", "add", "192.168.71.7/24", "dev", bench.port_a)
            ip("-n", host, "link", "set", "dev", bench.port_a, "up")
            ip("-n", host, "route", "add", "default", "via", "192.168.71.1")
            before = addresses_and_routes(host, bench.port_a)
            plan = tmp_path / "plan.yaml"
            plan.write_text(bench.plan())
            done = subprocess.run(
                ["ip", "netns", "exec", host, *WIRESPEED, "run", str(plan),
                 "--db", str(tmp_path / "db"), "-q"],
                capture_output=True, text=True, timeout=120, check=False,
            )  # fmt: skip
            assert done.returncode == 2, done.stderr
            assert f"port {bench.port_a} carries this machine's default route" in done.stderr
            assert "force: true under hosts: lan-side" in done.stderr
            assert "Traceback" not in done.stderr
            assert addresses_and_routes(host, bench.port_a) == before
            assert port_namespaces(bench) == []
        finally:
            ip("-n", host, "link", "del", bench.port_a, check=False)
            ip("netns", "del", host, check=False)


def test_a_port_with_a_qdisc_of_its_own_is_refused_and_keeps_it(
    bench: PortBench, tmp_path: Path
) -> None:
    """The kernel drops a port's qdiscs when it moves: not moved without force."""
    subprocess.run(
        ["tc", "qdisc", "add", "dev", bench.port_b, "root", "tbf", "rate", "100mbit",
         "burst", "25000", "limit", "250000"],
        check=True,
    )  # fmt: skip
    plan = tmp_path / "plan.yaml"
    plan.write_text(bench.plan())
    before = bench.state()
    status, _, err = run_cli("run", str(plan), "--db", str(tmp_path / "db"), "-q")
    assert status == 2, err
    assert f"port {bench.port_b} has qdisc(s) of its own (tbf " in err
    assert "force: true under hosts: wan-side" in err
    assert f"`tc qdisc del dev {bench.port_b} root` for the run" in err
    assert bench.state() == before
    assert port_namespaces(bench) == []
    shown = subprocess.run(
        ["tc", "qdisc", "show", "dev", bench.port_b], capture_output=True, text=True, check=True
    )
    assert "qdisc tbf" in shown.stdout


def test_the_port_of_the_ssh_session_wirespeed_runs_in_is_refused(
    bench: PortBench, tmp_path: Path
) -> None:
    plan = tmp_path / "plan.yaml"
    plan.write_text(bench.plan())
    before = bench.state()
    local = bench.own_subnet.partition("/")[0]
    session = {"SSH_CONNECTION": f"100.127.9.9 50022 {local} 22"}
    with mock.patch.dict(os.environ, session):
        status, _, err = run_cli("run", str(plan), "--db", str(tmp_path / "db"))
    assert status == 2, err
    assert f"port {bench.port_a} carries the SSH session wirespeed runs in" in err
    assert bench.state() == before


def test_a_port_another_run_moved_is_said_to_be_in_use_and_by_what(
    bench: PortBench, tmp_path: Path
) -> None:
    """The port sits in its namespace, as another run leaves it while it measures (moved
    there with plain ip, a program running there): not "no such port"."""
    namespace = f"{bench.port_a}-port"
    ip("netns", "add", namespace)
    ip("link", "set", "dev", bench.port_a, "netns", namespace)
    other = subprocess.Popen(["ip", "netns", "exec", namespace, "sleep", "60"])
    try:
        deadline = time.monotonic() + 10
        while not ip("netns", "pids", namespace).split():
            assert time.monotonic() < deadline, "sleep never ran in the namespace"
            time.sleep(0.05)
        plan = tmp_path / "plan.yaml"
        plan.write_text(bench.plan())
        status, _, err = run_cli("run", str(plan), "--db", str(tmp_path / "db"), "-q")
        assert status == 2, err
        assert "no such port" not in err
        assert f"port {bench.port_a} is in use: it is in namespace {namespace}" in err
        assert f"running there: sleep (pid {other.pid})" in err
        assert "wirespeed tune restore local" in err
        assert other.poll() is None, "the other run's program was left alone"
        assert not bench.in_this_namespace(bench.port_a)
    finally:
        other.kill()
        other.wait()
