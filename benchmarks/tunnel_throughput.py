"""Throughput through VPN tunnels in the lab: OpenVPN at its defaults against seed 004's
`--tun-mtu 6000 --fragment 0 --mssfix 0`, and WireGuard (wireguard-go), each with the
tunnel ending at the DUT (ends: dut, endpoint lab) and crossing it (ends: through,
router lab), on a gigabit link shaped with tbf (or unshaped with --link unshaped).

TCP (iperf3, one stream) up, repeated (default 3); per tunnel: the median, min and max
Mbit/s, the tunnel's ceiling, and the busiest tunnel daemon's CPU (the tunnel's
findings). OpenVPN here has no data channel offload (no ovpn-dco on this kernel): every
packet crosses userspace, as the findings say. Needs root, ~2 minutes per repetition.

    sudo .venv/bin/python -m benchmarks.tunnel_throughput [--repeat 3] [--duration 10]
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import statistics
import sys

from benchmarks.common import emit, run_plan_text
from wirespeed.analysis.ceiling import ceiling_for
from wirespeed.model import FindingKind, Flow

TUNNELS = {
    "openvpn": "{kind: openvpn, ENDS}",
    "openvpn-mtu6000": "{kind: openvpn, ENDS, tun_mtu: 6000, fragment: 0, mssfix: 0}",
    "wireguard": "{kind: wireguard, ENDS}",
}
PLACES = {"dut": "endpoint", "through": "router"}
_CPU = re.compile(r"\(pid \d+\) used (\d+) % of a core")


def plan_text(link: str, duration: float, repeat: int) -> str:
    paths = [
        f"  - {{name: {name}-{ends}, topology: {topology}, "
        f"tunnel: {tunnel.replace('ENDS', f'ends: {ends}')}}}"
        for ends, topology in PLACES.items()
        for name, tunnel in TUNNELS.items()
    ]
    return (
        f"lab: {{link: {link}}}\npaths:\n" + "\n".join(paths) + "\n"
        f"repetitions: {repeat}\n"
        f"tests: [{{id: tcp, tool: iperf3, duration: {duration}}}]\n"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--duration", type=float, default=10.0)
    parser.add_argument("--link", default="gbe", help="gbe (shaped to 1 Gbit/s) or unshaped")
    args = parser.parse_args()
    _, outcome = run_plan_text(plan_text(args.link, args.duration, args.repeat))
    by_path: dict[str, list[float]] = {}
    cpu: dict[str, list[int]] = {}
    ceilings: dict[str, float | None] = {}
    for trial in outcome.outcomes:
        name = trial.trial.path.name
        if trial.result is None:
            print(f"{trial.trial.key}: {trial.reason}", file=sys.stderr)
            continue
        up = trial.result.direction(Flow.UP)
        if up is not None and up.goodput_bps is not None:
            by_path.setdefault(name, []).append(up.goodput_bps / 1e6)
        found = ceiling_for(trial.trial)
        ceilings[name] = None if found is None else found.bits_per_second / 1e6
        for finding in trial.findings:
            if finding.kind is FindingKind.TUNNEL and (match := _CPU.search(finding.message)):
                cpu.setdefault(name, []).append(int(match.group(1)))
    for name, values in by_path.items():
        ceiling = ceilings.get(name)
        emit(
            "tunnel_throughput",
            {
                "path": name,
                "link": args.link,
                "n": len(values),
                "median_mbps": round(statistics.median(values), 1),
                "min_mbps": round(min(values), 1),
                "max_mbps": round(max(values), 1),
                "ceiling_mbps": None if ceiling is None else round(ceiling, 1),
                "busiest_daemon_cpu_percent": max(cpu.get(name, [0])),
                "machine": f"{os.cpu_count()} cores, {platform.release()}",
                "load_average": round(os.getloadavg()[0], 2),
            },
        )
    return 0 if by_path else 1


if __name__ == "__main__":
    sys.exit(main())
