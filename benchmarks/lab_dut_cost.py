"""What the lab's CPU-bound DUT costs this machine's CPU, beside the policer it replaced.

One router lab at 1 Gbit/s; the same paced UDP (iperf2, 18-byte datagrams, RATE
packets/s for SECONDS) from client to server through its DUT in three states, taken in
turns REPEAT times so that other work on the machine weighs on each alike:

  - plain: no limit;
  - ring: the limited DUT of lab/limits.py (ifb fed by both ports' egress, tbf, pfifo
    ring), with a packet rate far above RATE so that it never binds: its cost alone;
  - policer: the limit it replaced, an nftables `limit rate over` in the forward hook,
    also far above RATE.

For each, the kernel's time (system + irq + softirq, /proc/stat, all CPUs) over the
test divided by the packets the server received: microseconds of CPU a packet. The
ring's and the policer's extra are the differences from plain (medians).

Needs root, about a minute.

    sudo .venv/bin/python -m benchmarks.lab_dut_cost [--rate 15000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import time

from benchmarks.common import emit
from wirespeed.lab.lab import Lab, LabSpec
from wirespeed.lab.limits import BACKLOG, budget_argvs, redirect_argvs
from wirespeed.lab.links import parse_link
from wirespeed.model import ForwardingLimit, Role, Topology

NEVER = 10_000_000  # packets/s: a limit that never binds at RATE
POLICER = (
    "table ip bench-policer {\n"
    "  chain forward {\n"
    "    type filter hook forward priority filter; policy accept;\n"
    f"    limit rate over {NEVER}/second burst {NEVER // 100} packets drop\n"
    "  }\n"
    "}\n"
)
# "[  1] 0.0000-3.0001 sec  1.03 MBytes  2.88 Mbits/sec  0.004 ms 0/45004 (0%)"
_REPORT = re.compile(r"(\d+)/(\d+) \(")


def kernel_jiffies() -> int:
    with open("/proc/stat", encoding="ascii") as stat:
        fields = stat.readline().split()
    # cpu user nice system idle iowait irq softirq steal ...
    return int(fields[3]) + int(fields[6]) + int(fields[7])


def udp_through(lab: Lab, rate: int, seconds: float) -> tuple[int, int]:
    """(packets the server received, kernel jiffies spent meanwhile)."""
    server = subprocess.Popen(
        ["ip", "netns", "exec", lab.namespaces[Role.SERVER], "iperf", "-s", "-u", "-p", "5990"],
        stdout=subprocess.PIPE,
        text=True,
    )
    time.sleep(0.5)
    before = kernel_jiffies()
    lab.hosts[Role.CLIENT].run(
        ["iperf", "-c", lab.server_address, "-u", "-p", "5990", "-l", "18",
         "-b", f"{rate}pps", "-t", str(seconds)],
        timeout=seconds + 30,
    )  # fmt: skip
    spent = kernel_jiffies() - before
    time.sleep(0.3)
    server.terminate()
    output, _ = server.communicate(timeout=10)
    found = _REPORT.findall(output)
    lost, total = (int(v) for v in found[-1])
    return total - lost, spent


def run(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rate", type=int, default=15_000)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    hz = os.sysconf("SC_CLK_TCK")
    spec = LabSpec(Topology.ROUTER, parse_link("gbe"), name=f"cost{os.getpid()}")
    per_packet: dict[str, list[float]] = {"plain": [], "ring": [], "policer": []}
    with Lab.up(spec) as lab:
        dut = lab.namespaces[Role.DUT]
        limit = ForwardingLimit(pps=NEVER)
        ring_on = redirect_argvs(dut, ("lan", "wan")) + budget_argvs(dut, limit, spec.link, 1500)
        ring_off = [
            *(["tc", "-n", dut, "qdisc", "del", "dev", port, "clsact"] for port in ("lan", "wan")),
            ["ip", "-n", dut, "link", "del", BACKLOG],
        ]
        for _ in range(args.repeat):
            for state, values in per_packet.items():
                if state == "ring":
                    for command in ring_on:
                        subprocess.run(command, check=True)
                if state == "policer":
                    subprocess.run(
                        ["ip", "netns", "exec", dut, "nft", "-f", "-"], input=POLICER,
                        text=True, check=True,
                    )  # fmt: skip
                try:
                    packets, jiffies = udp_through(lab, args.rate, args.seconds)
                finally:
                    if state == "ring":
                        for command in ring_off:
                            subprocess.run(command, check=True)
                    if state == "policer":
                        subprocess.run(
                            ["ip", "netns", "exec", dut, "nft", "delete", "table", "ip",
                             "bench-policer"],
                            check=True,
                        )  # fmt: skip
                values.append(jiffies / hz / packets * 1e6)
    medians = {state: statistics.median(values) for state, values in per_packet.items()}
    emit(
        "lab_dut_cost",
        {
            "rate_pps": args.rate,
            "seconds": args.seconds,
            "repeat": args.repeat,
            "load_average": os.getloadavg()[0],
            "kernel_us_per_packet": {k: round(v, 2) for k, v in medians.items()},
            "all": {k: [round(v, 2) for v in values] for k, values in per_packet.items()},
            "ring_extra_us": round(medians["ring"] - medians["plain"], 2),
            "policer_extra_us": round(medians["policer"] - medians["plain"], 2),
            "ring_extra_share_of_a_core_at_rate": round(
                (medians["ring"] - medians["plain"]) * args.rate / 1e6, 3
            ),
        },
    )


if __name__ == "__main__":
    run()
