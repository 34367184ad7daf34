"""One PC with two ports, the commonest home bench, on the foreign bench: port A on the
router's LAN, port B on the WAN switch. Two ends that are this PC in one namespace reach
each other over loopback, never through the router: refused at check when the plan says
so (both ends local), and, where the plan cannot tell (two SSH names of the same PC),
caught by the router's own counters: never an ok trial."""

from __future__ import annotations

from pathlib import Path

import pytest
from bench_runs import MakeBench, outcomes, run_plan

from support.foreign_bench import PC_LAN, PC_WAN, ROUTER_WAN, TCP_CEILING_BPS
from wirespeed.model import FindingKind, Flow, TrialStatus

pytestmark = [pytest.mark.root, pytest.mark.slow]


def test_two_names_of_one_pc_through_the_router_is_caught_by_its_counters(
    foreign_bench: MakeBench, tmp_path: Path
) -> None:
    bench = foreign_bench(pc_wan_port=True)
    plan = f"""\
        hosts:
          lan-side: {{address: {PC_LAN}, ssh: root@pc}}
          wan-side: {{address: {PC_WAN}, ssh: root@pc-wan}}
          router: {{address: {ROUTER_WAN}, ssh: root@router}}
        paths:
          - {{name: R, topology: router, client: lan-side, server: wan-side, dut: router,
             link: gbe}}
        tests:
          - {{id: 1, name: TCP, tool: iperf2, duration: 2}}
    """
    done = run_plan(bench, tmp_path, plan)
    [outcome] = outcomes(tmp_path)
    assert outcome.status is TrialStatus.FAILED, done.stdout[-2000:]
    assert outcome.reason is not None and "never crossed router" in outcome.reason
    # What iperf measured is kept (far above the gigabit ceiling: loopback), not shown ok.
    assert outcome.result is not None
    up = outcome.result.direction(Flow.UP)
    assert up is not None and up.goodput_bps is not None
    assert [f for f in outcome.findings if f.kind is FindingKind.SUSPECT]
    assert done.returncode != 0


def test_tcp_through_the_router_crosses_it_at_the_gigabit_ceiling(
    foreign_bench: MakeBench, tmp_path: Path
) -> None:
    # The same check passes a trial that did cross: the laptop on the LAN to the
    # workstation beyond the WAN, through NAT.
    bench = foreign_bench()
    plan = """\
        hosts:
          laptop: {address: 192.168.7.50, ssh: root@pc}
          workstation: {address: 198.51.100.2, ssh: root@workstation}
          router: {address: 198.51.100.1, ssh: root@router}
        paths:
          - {name: NAT, topology: nat, client: laptop, server: workstation, dut: router,
             link: gbe}
        tests:
          - {id: 1, name: TCP, tool: iperf2, duration: 3}
    """
    run_plan(bench, tmp_path, plan)
    [outcome] = outcomes(tmp_path)
    assert outcome.status is TrialStatus.OK, outcome.reason
    assert outcome.result is not None
    up = outcome.result.direction(Flow.UP)
    assert up is not None and up.goodput_bps is not None
    # Loose: this machine is shared; the ceiling's precise check is the lab's.
    assert 0.85 * TCP_CEILING_BPS <= up.goodput_bps <= 1.01 * TCP_CEILING_BPS, up.goodput_bps


def test_both_ends_on_this_machine_are_refused_at_check(
    foreign_bench: MakeBench, tmp_path: Path
) -> None:
    bench = foreign_bench()
    plan = f"""\
        hosts:
          port-a: {{address: {PC_LAN}}}
          port-b: {{address: {PC_WAN}}}
          router: {{address: {ROUTER_WAN}, ssh: root@router}}
        paths:
          - {{name: R, topology: router, client: port-a, server: port-b, dut: router}}
        tests:
          - {{id: 1, name: TCP, tool: iperf2, duration: 2}}
    """
    for command in ("check", "run"):
        done = run_plan(bench, tmp_path, plan, command=command)
        assert done.returncode == 2, done.stderr
        assert "plan.yaml:6:" in done.stderr and "both this machine" in done.stderr
        assert f"port-b: {{address: {PC_WAN}, ssh: root@{PC_WAN}}}" in done.stderr
        assert "Traceback" not in done.stderr
