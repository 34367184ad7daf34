"""Variants on the user's own bench: this PC's two ports (veths in the root namespace,
moved by wirespeed into namespaces for the run) through the foreign bench's router,
which shows a NanoPi R4S's CPUs (fake_cpus.py) and is tuned over SSH. The variants' RPS,
MTU and CPU knobs go on the router (and the MTU on the PC's ports), journaled, and come
back as they were: at each variant's end, and after a SIGKILL on the next start."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest
from bench_runs import WIRESPEED, MakeBench, outcomes, run_plan

from support.foreign_bench import ROUTER_LAN, ROUTER_WAN, TCP_CEILING_BPS, ForeignBench
from wirespeed.model import Flow, TrialStatus

pytestmark = [pytest.mark.root, pytest.mark.slow]

TCP_CEILING_MTU_512 = 836.4e6  # LIMITS.md: TCP at 1 GbE, MTU 512
CPU = "/sys/devices/system/cpu"
# The router as the plan reaches it, by its LAN address through port A (from the
# namespace wirespeed moved the port into), and so as the journal names it.
DUT = f"root@{ROUTER_LAN}"

PLAN = """\
hosts:
  lan-side: {{port: {a}, address: 192.168.7.60/24, gateway: 192.168.7.1}}
  wan-side: {{port: {b}, address: 198.51.100.4/24, gateway: {wan}}}
  router: {{address: {wan}, ssh: root@{lan}}}
paths:
  - {{name: Br0, topology: nat, client: lan-side, server: wan-side, dut: router,
     link: gbe}}
defaults: {{tool: iperf2, duration: {duration}}}
tests:
  - {{id: 1, name: TCP}}
variants:
  - {{name: stock}}
  - {{name: rps-cpu1, rps: "2"}}
  - {{name: mtu512, mtu: 512}}
  - {{name: gro-on, offloads: {{gro: "on"}}}}
  - {{name: little-cores, cpus_online: [0, 1, 2, 3], governor: performance,
     max_freq: 1.2GHz}}
"""


def plan_text(bench: ForeignBench, duration: float) -> str:
    return PLAN.format(
        a=bench.port_a, b=bench.port_b, wan=ROUTER_WAN, lan=ROUTER_LAN, duration=duration
    )


def router_state(bench: ForeignBench) -> dict[str, str]:
    """What the variants change on the router, as it reads it."""
    files = [
        *(f"/sys/class/net/{dev}/queues/rx-0/rps_cpus" for dev in ("lan", "lan2", "wan")),
        *(f"/sys/class/net/{dev}/mtu" for dev in ("lan", "lan2", "br-lan", "wan")),
        *(f"{CPU}/cpu{n}/online" for n in range(1, 6)),
        *(f"{CPU}/cpufreq/policy{p}/{k}" for p in (0, 4) for k in ("scaling_governor",
                                                                 "scaling_max_freq")),
    ]  # fmt: skip
    # The router runs this machine's ethtool (its /usr/sbin): OpenWrt's has none
    # until `opkg install ethtool`, which wirespeed names when it is missing.
    offloads = "; ".join(
        f"echo gro-{dev}=$(ethtool -k {dev} | grep generic-receive-offload:)"
        for dev in ("lan", "lan2", "wan")
    )
    done = subprocess.run(
        ["ssh", "-F", str(bench.ssh_config), "router",
         " ".join(f"echo {f}=$(cat {f});" for f in files) + offloads],
        capture_output=True, text=True, timeout=30, check=True,
    )  # fmt: skip
    return dict(line.split("=", 1) for line in done.stdout.splitlines())


def ports_state(bench: ForeignBench) -> dict[str, object]:
    found: dict[str, object] = {}
    for port in (bench.port_a, bench.port_b):
        (link,) = json.loads(
            subprocess.run(["ip", "-j", "addr", "show", "dev", port], capture_output=True,
                           text=True, check=True).stdout
        )  # fmt: skip
        found[port] = (link["mtu"], link["operstate"], link["addr_info"])
    return found


def journal(db: Path) -> list[tuple[str, str, str]]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT host, target, state FROM tune_journal ORDER BY id")
        return [(str(h), str(t), str(s)) for h, t, s in rows]


def test_variants_on_the_router_over_ssh_measured_through_the_pcs_two_ports(
    foreign_bench: MakeBench, tmp_path: Path
) -> None:
    bench = foreign_bench(root_ports=True, cpu_board="r4s")
    router_before, ports_before = router_state(bench), ports_state(bench)
    done = run_plan(bench, tmp_path, plan_text(bench, duration=2))
    assert done.returncode == 0, done.stderr[-3000:]
    assert router_state(bench) == router_before
    assert ports_state(bench) == ports_before

    by_variant = {o.trial.variant: o for o in outcomes(tmp_path)}
    for outcome in by_variant.values():
        assert outcome.status is TrialStatus.OK, (outcome.trial.variant, outcome.reason)

    def goodput(variant: str) -> float:
        result = by_variant[variant].result
        assert result is not None
        up = result.direction(Flow.UP)
        assert up is not None and up.goodput_bps is not None
        return up.goodput_bps

    # Loose: this machine is shared (benchmarks/bench_variants.py measures it quiet).
    assert 0.8 * TCP_CEILING_BPS <= goodput("stock") <= 1.01 * TCP_CEILING_BPS
    assert 0.8 * TCP_CEILING_BPS <= goodput("rps-cpu1") <= 1.01 * TCP_CEILING_BPS
    # The MTU went on the router and on both ports: TCP stays under MTU 512's ceiling
    # (three times the packets of MTU 1500: on a busy machine, well under it).
    assert 0.3 * TCP_CEILING_MTU_512 <= goodput("mtu512") <= 1.01 * TCP_CEILING_MTU_512

    rows = journal(tmp_path / "runs.db")
    assert {state for _, _, state in rows} == {"restored"}, rows
    changed = {(host, target) for host, target, _ in rows}
    assert (DUT, "/sys/class/net/lan2/queues/rx-0/rps_cpus") in changed
    # The MTU on both sides of the router: br-lan's ports (the bridge follows them by
    # itself, so it is left to) and wan.
    assert (DUT, "/sys/class/net/lan2/mtu") in changed
    assert (DUT, "/sys/class/net/wan/mtu") in changed
    assert (DUT, "/sys/class/net/br-lan/mtu") not in changed
    assert (f"{bench.port_a}-port", f"/sys/class/net/{bench.port_a}/mtu") in changed
    assert (f"{bench.port_b}-port", f"/sys/class/net/{bench.port_b}/mtu") in changed
    assert (DUT, "ethtool:lan2:generic-receive-offload") in changed
    assert (DUT, f"{CPU}/cpu5/online") in changed
    assert (DUT, f"{CPU}/cpufreq/policy0/scaling_max_freq") in changed
    # The steering stays on the router: the PC's ports get only the MTU (and their own
    # row, that of the move).
    assert not [t for h, t in changed if h != DUT and not t.endswith("/mtu") and h != "local"]


def test_a_sigkilled_run_leaves_every_port_and_setting_restored_on_the_next_start(
    foreign_bench: MakeBench, tmp_path: Path
) -> None:
    bench = foreign_bench(root_ports=True, cpu_board="r4s")
    router_before, ports_before = router_state(bench), ports_state(bench)
    killed = tmp_path / "killed.yaml"
    # One variant that changes everything at once, its trial long enough to be killed in.
    killed.write_text(
        plan_text(bench, duration=60).split("variants:")[0]
        + "variants:\n  - {name: all, rps: '2', mtu: 512, cpus_online: [0, 1, 2, 3],"
        " governor: performance}\n"
    )
    process = subprocess.Popen(
        [*WIRESPEED, "run", str(killed), "--ssh-config", str(bench.ssh_config),
         "--db", str(tmp_path / "runs.db"), "-q"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    try:
        # Killed once the variant is in force (its CPU knobs come last; the router's
        # CPU tree is a directory of this machine) and the ports are moved.
        assert bench.cpu_tree is not None
        while (bench.cpu_tree / "cpu5/online").read_text().strip() != "0" or not (
            subprocess.run(
                ["ip", "netns", "pids", f"{bench.port_b}-port"],
                capture_output=True,
                text=True,
                check=False,
            ).stdout.split()
        ):
            assert process.poll() is None, process.communicate()[1][-2000:]
            assert time.monotonic() < deadline, "the run never started its traffic"
            time.sleep(0.1)
    finally:
        process.send_signal(signal.SIGKILL)
        process.communicate()
    left = router_state(bench)
    assert left[f"{CPU}/cpu5/online"] == "0" and left["/sys/class/net/lan2/mtu"] == "512"
    for port in (bench.port_a, bench.port_b):  # still in wirespeed's namespaces
        shown = subprocess.run(["ip", "link", "show", port], capture_output=True, check=False)
        assert shown.returncode != 0

    # The next start restores everything before it measures anything.
    done = run_plan(bench, tmp_path, plan_text(bench, duration=1).split("variants:")[0])
    assert done.returncode == 0, done.stderr[-3000:]
    assert router_state(bench) == router_before
    assert ports_state(bench) == ports_before
    rows = journal(tmp_path / "runs.db")
    assert not [row for row in rows if row[2] in ("pending", "applied")], rows
    # The ports' MTU rows went with their namespaces: the ports' own rows, restored
    # first, brought them back with their MTU.
    assert {h for h, _, state in rows if state == "forgotten"} <= {
        f"{bench.port_a}-port",
        f"{bench.port_b}-port",
    }
