"""A port host's routes beyond its own: a multipath (ECMP) route through two ports of
this machine, IPv4 and IPv6, in the main table and a policy table. wirespeed runs in a
namespace of the test's standing for this machine (support/port_bench.py), whose
default routes leave by the bench's ports: refused, moved by force and given back, and
given back by `tune restore` after a run killed mid-trial."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from lab_runs import WIRESPEED

from support.port_bench import PortBench, ip, port_bench, ports_in_a_host, routes_someone_added

pytestmark = [pytest.mark.root]

FORCED_PLAN = """\
title: two ports, both under this machine's multipath default route
hosts:
  lan-side: {{port: {a}, address: 192.168.71.50/24, gateway: 192.168.71.1, force: true}}
  wan-side: {{port: {b}, address: 10.71.0.2/24, gateway: 10.71.0.1, force: true}}
paths:
  - {{name: routed, topology: router, client: lan-side, server: wan-side, link: gbe}}
tests:
  - {{id: tcp, protocol: tcp, duration: 1}}
"""


@pytest.fixture
def bench() -> Iterator[PortBench]:
    with port_bench() as made:
        yield made


def in_host(host: str) -> list[str]:
    """argv prefix that runs in the host's network namespace. Not `ip netns exec`: its
    mount namespace of its own would hide the port namespaces a run makes (bind mounts
    under /run/netns) from the test and from a later wirespeed."""
    return ["nsenter", f"--net=/run/netns/{host}"]


def run_in(host: str, plan: Path, db: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*in_host(host), *WIRESPEED, "run", str(plan), "--db", str(db), "-q"],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


def add_multipath_routes(host: str, bench: PortBench) -> None:
    a, b = bench.port_a, bench.port_b
    ip(
        "-n",
        host,
        "route",
        "add",
        "default",
        "nexthop",
        "via",
        "192.168.71.1",
        "dev",
        a,
        "nexthop",
        "via",
        "10.71.0.1",
        "dev",
        b,
    )
    ip(
        "-n",
        host,
        "-6",
        "route",
        "add",
        "default",
        "nexthop",
        "via",
        "2001:db8:71::1",
        "dev",
        a,
        "nexthop",
        "via",
        "2001:db8:72::1",
        "dev",
        b,
    )
    ip("-n", host, "route", "add", "172.16.0.0/16", "table", "100",
       "nexthop", "via", "192.168.71.1", "dev", a, "weight", "3",
       "nexthop", "via", "10.71.0.1", "dev", b)  # fmt: skip


def test_a_multipath_default_route_through_the_ports_is_refused(
    bench: PortBench, tmp_path: Path
) -> None:
    with ports_in_a_host(bench) as host:
        add_multipath_routes(host, bench)
        before = routes_someone_added(host)
        assert sum('"nexthops"' in route for route in before) == 3
        plan = tmp_path / "plan.yaml"
        plan.write_text(bench.plan(duration=1))
        refused = run_in(host, plan, tmp_path / "runs.db")
        assert refused.returncode == 2, refused.stderr
        assert f"port {bench.port_a} carries this machine's default route" in refused.stderr
        assert "force: true under hosts: lan-side" in refused.stderr
        assert "Traceback" not in refused.stderr
        assert routes_someone_added(host) == before


def test_ports_moved_under_a_multipath_route_give_it_back_and_journal_it(
    bench: PortBench, tmp_path: Path
) -> None:
    with ports_in_a_host(bench) as host:
        add_multipath_routes(host, bench)
        before = routes_someone_added(host)
        plan, db = tmp_path / "plan.yaml", tmp_path / "runs.db"
        plan.write_text(FORCED_PLAN.format(a=bench.port_a, b=bench.port_b))
        done = run_in(host, plan, db)
        assert done.returncode == 0, done.stderr
        assert routes_someone_added(host) == before
        names = [line.split()[0] for line in ip("netns", "list").splitlines() if line]
        assert not {f"{port}-port" for port in bench.ports} & set(names)
        with sqlite3.connect(db) as store:
            rows = store.execute(
                "SELECT target, previous FROM tune_journal WHERE target LIKE 'port:%'"
            ).fetchall()
        assert sorted(target for target, _ in rows) == [f"port:{p}" for p in bench.ports]
        for _, previous in rows:
            multipath = [r for r in json.loads(previous)["routes"] if "nexthops" in r]
            assert len(multipath) == 3, previous


def test_a_killed_run_under_a_multipath_route_gives_it_back_on_the_next_start(
    bench: PortBench, tmp_path: Path
) -> None:
    """SIGKILL once traffic flows: the ports stay moved and the routes gone, until
    `tune restore` brings both ports back, the route with the last of them."""
    with ports_in_a_host(bench) as host:
        add_multipath_routes(host, bench)
        before = routes_someone_added(host)
        plan, db = tmp_path / "plan.yaml", tmp_path / "runs.db"
        plan.write_text(FORCED_PLAN.format(a=bench.port_a, b=bench.port_b).replace(
            "duration: 1", "duration: 60"))  # fmt: skip
        process = subprocess.Popen(
            [*in_host(host), *WIRESPEED, "run", str(plan), "--db", str(db), "-q"],
            stdout=subprocess.DEVNULL,
            stderr=(tmp_path / "run.err").open("w"),
        )
        try:
            deadline = time.monotonic() + 60
            while not all(
                ip("netns", "pids", f"{port}-port", check=False).split() for port in bench.ports
            ):
                err = (tmp_path / "run.err").read_text()
                assert process.poll() is None, f"the run ended before its traffic flowed: {err}"
                assert time.monotonic() < deadline, f"the ports were never moved: {err}"
                time.sleep(0.1)
        finally:
            process.kill()
            process.wait()
        assert routes_someone_added(host) != before
        done = subprocess.run(
            [*in_host(host), *WIRESPEED, "tune", "restore", "local", "--db", str(db)],
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert f"port {bench.port_a} is back as it was" in done.stdout
        assert routes_someone_added(host) == before
        names = [line.split()[0] for line in ip("netns", "list").splitlines() if line]
        assert not {f"{port}-port" for port in bench.ports} & set(names)
