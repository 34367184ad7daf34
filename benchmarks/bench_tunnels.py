"""VPN tunnels between real machines against the lab, for the same tunnels: OpenVPN and
WireGuard from the laptop to the router (ends: dut, the router runs iperf at its tunnel
address) and from the laptop through the router's NAT to the workstation (ends:
through), on the foreign bench (tests/support/foreign_bench.py: namespaces standing for
an OpenWrt-like router reached over dropbear, a workstation and a PC over OpenSSH, built
without wirespeed's lab code) and on the lab's endpoint and nat paths. Both on links
shaped to --mbit (1000: gigabit; 100: Fast Ethernet) with tbf.

TCP (iperf3, one stream) up, repeated (default 3); per path: median, min and max
Mbit/s, the tunnel's ceiling, and the seconds its tunnel took to come up (keys, daemons,
handshake, one ping through) and to go (daemons stopped, devices and keys removed): over
SSH on the bench, with `ip netns exec` in the lab. Needs root, about a minute per
repetition.

    sudo .venv/bin/python -m benchmarks.bench_tunnels [--mbit 1000] [--repeat 3] [--duration 10]
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from benchmarks.common import emit, summary
from wirespeed.analysis.ceiling import ceiling_for
from wirespeed.hosts.ssh_connection import SshSettings
from wirespeed.model import Flow
from wirespeed.plan import expand, parse_plan
from wirespeed.run.runner import Runner
from wirespeed.store import Store

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from support.foreign_bench import PC_LAN, ROUTER_WAN, WORKSTATION, ForeignBench

LINKS = {1000: "gbe", 100: "fe"}
TUNNELS = {"openvpn": "{kind: openvpn, ENDS}", "wireguard": "{kind: wireguard, ENDS}"}


def plan_text(link: str) -> str:
    paths = []
    for name, tunnel in TUNNELS.items():
        for ends in ("dut", "through"):
            spec = tunnel.replace("ENDS", f"ends: {ends}")
            bench = (
                "client: laptop, server: router"
                if ends == "dut"
                else "client: laptop, server: workstation, dut: router"
            )
            topology = "endpoint" if ends == "dut" else "nat"
            paths.append(
                f"  - {{name: bench-{name}-{ends}, topology: {topology}, {bench}, "
                f"link: {link}, tunnel: {spec}}}"
            )
            paths.append(f"  - {{name: lab-{name}-{ends}, topology: {topology}, tunnel: {spec}}}")
    return (
        f"title: tunnels on the bench and in the lab\nlab: {{link: {link}}}\n"
        "hosts:\n"
        f"  laptop: {{address: {PC_LAN}, ssh: root@pc}}\n"
        f"  workstation: {{address: {WORKSTATION}, ssh: root@workstation}}\n"
        f"  router: {{address: {ROUTER_WAN}, ssh: root@router}}\n"
        "paths:\n" + "\n".join(paths) + "\n"
        "tests: [{id: tcp, tool: iperf3, protocol: tcp}]\n"
    )


Timings = dict[str, tuple[list[float], list[float]]]


def timed(open_tunnel: Callable[..., Any], where: str, timings: Timings) -> Callable[..., Any]:
    """open_tunnel, timing its coming up and its going, by path name."""

    @contextlib.contextmanager
    def opened(*args: Any, **kwargs: Any) -> Iterator[Any]:
        spec = next(a for a in (*args, *kwargs.values()) if hasattr(a, "ends"))
        ups, downs = timings.setdefault(f"{where}-{spec.kind.value}-{spec.ends.value}", ([], []))
        start = time.monotonic()
        with open_tunnel(*args, **kwargs) as tunnel:
            ups.append(time.monotonic() - start)
            yield tunnel
            start = time.monotonic()
        downs.append(time.monotonic() - start)

    return opened


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mbit", type=int, choices=sorted(LINKS), default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--duration", type=float, default=10.0)
    args = parser.parse_args()
    link = LINKS[args.mbit]
    figures: dict[str, list[float]] = {}
    timings: Timings = {}
    from wirespeed.lab import tunnel as lab_tunnels
    from wirespeed.run import host_tunnel as host_tunnels

    lab_tunnels.lab_tunnel = timed(lab_tunnels.lab_tunnel, "lab", timings)
    host_tunnels.host_tunnel = timed(host_tunnels.host_tunnel, "bench", timings)
    ceilings: dict[str, float] = {}
    bench = ForeignBench.build(tunnel_tools=True, link_mbit=args.mbit, forward=None)
    try:
        settings = SshSettings(config_path=bench.ssh_config)
        plan = parse_plan(plan_text(link), source="<benchmark>")
        trials = expand(plan, duration=args.duration, repetitions=args.repeat)
        with tempfile.TemporaryDirectory() as tmp:
            store = Store.open(Path(tmp) / "bench.db")
            try:
                runner = Runner(plan, store, lab_prefix="tun-bench", ssh_settings=settings)
                outcome = runner.run(trials, argv=sys.argv)
            finally:
                store.close()
    finally:
        bench.down()
    for trial_outcome in outcome.outcomes:
        trial, result = trial_outcome.trial, trial_outcome.result
        up = result.direction(Flow.UP) if result else None
        if up is None or up.goodput_bps is None:
            print(f"{trial.key}: {trial_outcome.reason}", file=sys.stderr)
            continue
        name = trial.path.name
        figures.setdefault(name, []).append(up.goodput_bps / 1e6)
        found = ceiling_for(trial)
        if found is not None:
            ceilings[name] = found.bits_per_second / 1e6
    for name, values in figures.items():
        emit(
            "bench_tunnels",
            {
                "path": name,
                "link": link,
                **{k: round(v, 1) for k, v in summary(values).items()},
                "ceiling": round(ceilings.get(name, 0.0), 1),
                "up_s": round(statistics.median(timings[name][0]), 2),
                "down_s": round(statistics.median(timings[name][1]), 2),
            },
        )


if __name__ == "__main__":
    main()
