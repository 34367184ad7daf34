"""Generator pacing: which UDP generator sends an exact packet rate with exact frame sizes?

A forwarding-rate search (RFC 2544) is only as good as its generator: a trial it could
not drive must not be read as the device's loss. This measures, in a router lab, for
iperf2 (`-b Npps -l PAYLOAD`) and netsniff-ng's trafgen (`-b Npps`, raw frames on a
packet socket) and each frame size and intended rate:

- offered: what the generator says it sent over its own sending time, against intended
  (pacing accuracy; the generator ceiling is the highest rate within +-1 %);
- the client's eth0 tx and the server's eth0 rx counters (/proc/net/dev) beside the
  generator's count, and the receiver's own count (iperf2's server report);
- the generator's CPU time (user + system, its whole process tree) per second of sending;
- the machine's load average beside each trial, so a busy minute shows.

Counting at the receiver's eth0 adds a few packets per trial that are no test's (the
DUT's ARP probes; the idle chatter is printed), and iperf2's own count of datagrams
("Sent") leaves out the final datagram it repeats until the server acknowledges it
(up to ~200 when the server is slow). iperf2's server report counts what the iperf
process read, not what arrived: on a busy machine it reports loss the interface did not
see.

Trials of one (size, rate) take turns between the generators, repetitions run as whole
sweeps, so drift of the machine does not land on one generator. trafgen is skipped with a
message when it is not installed (Debian: `apt-get install netsniff-ng`). Needs root.

    sudo .venv/bin/python -m benchmarks.generator_pacing [--duration 5] [--repetitions 3]
        [--sizes 64,512,1518] [--rates 10k,50k,100k,150k,200k,300k,500k,1M]
        [--link unshaped] [--lab-name bench-pacing] [--json]
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from benchmarks.common import emit
from wirespeed.cli.exit import raise_on_sigterm
from wirespeed.hosts.base import Process
from wirespeed.lab.lab import Lab, LabSpec
from wirespeed.lab.links import parse_link
from wirespeed.model import Role, Topology
from wirespeed.sampling.procfs import parse_loadavg, parse_net_dev
from wirespeed.search.frames import UDP_FRAME_OVERHEAD, udp_payload_for_frame
from wirespeed.units import parse_rate

IPERF2 = "iperf2"
TRAFGEN = "trafgen"
TOLERANCE = 0.01  # offered within +-1 % of intended: the generator paces
TRAFGEN_PORT = 9  # discard: nothing listens, the server answers at most a rate-limited ICMP
IPERF_PORT = 5001


@dataclass(frozen=True)
class Measured:
    generator: str
    frame: int
    intended_pps: int
    repetition: int
    sent: int | None  # the generator's own count; None: it printed none
    seconds: float  # the generator's own sending time (iperf2: its interval)
    client_tx: int  # eth0 tx packets of the client over the trial
    server_rx: int  # eth0 rx packets of the server over the trial
    received: int | None  # the receiver's own count (iperf2 server report)
    cpu_seconds: float  # user + system of the generator's process tree
    load1: float | None

    @property
    def offered_pps(self) -> float | None:
        return None if self.sent is None else self.sent / self.seconds

    @property
    def accuracy(self) -> float | None:
        """offered / intended - 1"""
        offered = self.offered_pps
        return None if offered is None else offered / self.intended_pps - 1


@dataclass(frozen=True)
class Finished:
    stdout: str
    cpu_seconds: float
    wall_seconds: float  # from start to exit, or to the SIGINT that stopped it
    interrupted: bool


def _counters(lab: Lab, role: Role) -> tuple[int, int]:
    """(rx packets, tx packets) of eth0 in the role's namespace."""
    eth0 = parse_net_dev(lab.hosts[role].read_file("/proc/net/dev"))["eth0"]
    return eth0.rx_packets, eth0.tx_packets


def _load1() -> float | None:
    load = parse_loadavg(Path("/proc/loadavg").read_text())
    return None if load is None else load[0]


def _run_measured(namespace: str, argv: Sequence[str], stop_after: float) -> Finished:
    """Run argv in the namespace to its end (or SIGINT its process group if it runs
    longer than stop_after seconds) and account its CPU by wait4: `ip netns exec` execs
    the program in place, and the program reaps its own children (trafgen's workers),
    so the rusage is the generator's whole tree and nothing of this process."""
    with tempfile.TemporaryFile(mode="w+") as out:
        child = subprocess.Popen(
            ["ip", "netns", "exec", namespace, *argv],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,  # a group of its own: SIGINT reaches trafgen's workers
        )
        started = time.monotonic()
        wall: float | None = None
        try:
            while True:
                # Popen.wait would reap the child and lose its rusage: poll with wait4.
                pid, _, usage = os.wait4(child.pid, os.WNOHANG)
                if pid:
                    break
                if wall is None and time.monotonic() - started > stop_after:
                    wall = time.monotonic() - started
                    os.killpg(child.pid, signal.SIGINT)
                time.sleep(0.005)
        except BaseException:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child.pid, signal.SIGKILL)
            child.wait()
            raise
        child.returncode = 0  # reaped here; Popen must not wait for it again
        out.seek(0)
        interrupted = wall is not None
        if wall is None:
            wall = time.monotonic() - started
        return Finished(out.read(), usage.ru_utime + usage.ru_stime, wall, interrupted)


# iperf2 2.1.8 with -e: "[  1] Sent 150003 datagrams", and the server report's
# "... 0.004 ms 0/150002 (0%) ..." (lost/total).
_IPERF_SENT = re.compile(r"Sent (\d+) datagrams")
_IPERF_INTERVAL = re.compile(r"\]\s+0\.0+-(\d+\.\d+) sec")
_IPERF_LOST_TOTAL = re.compile(r"ms\s+(-?\d+)/(-?\d+)\s+\(")


def _iperf2_trial(lab: Lab, frame: int, pps: int, duration: float) -> Finished:
    argv = [
        "iperf", "-c", lab.server_address, "-u", "-e", "-p", str(IPERF_PORT),
        "-l", str(udp_payload_for_frame(frame)), "-b", f"{pps}pps", "-t", str(duration),
    ]  # fmt: skip
    # iperf2 ends by itself; waiting for the server's report can add up to a second.
    return _run_measured(lab.namespaces[Role.CLIENT], argv, duration + 15)


def _parse_iperf2(out: str, duration: float) -> tuple[int | None, float, int | None]:
    """(sent, seconds, received) from the client's output."""
    sent = _IPERF_SENT.search(out)
    interval = _IPERF_INTERVAL.search(out)
    report = out.split("Server Report:", 1)
    received = None
    if len(report) == 2:
        lost_total = _IPERF_LOST_TOTAL.search(report[1])
        if lost_total:
            lost, total = int(lost_total[1]), int(lost_total[2])
            received = total - lost
    seconds = float(interval[1]) if interval else duration
    return (int(sent[1]) if sent else None), seconds, received


# trafgen 0.6.8 at exit: "     300000 packets outgoing" and, per worker,
# "           3 sec, 295 usec on CPU0 (300000 packets)".
_TRAFGEN_SENT = re.compile(r"(\d+) packets outgoing")
_TRAFGEN_TIME = re.compile(r"(\d+) sec, (\d+) usec on CPU")


def trafgen_config(dut_mac: str, source: str, destination: str, frame: int) -> str:
    """One UDP/IPv4 frame of exactly `frame` bytes with FCS (the FCS is the NIC's)."""
    # trafgen's IPv4 TTL defaults to 0: a router drops such a packet, so set it.
    payload = frame - UDP_FRAME_OVERHEAD
    return (
        f"{{ eth(da={dut_mac}), ipv4(sa={source}, da={destination}, ttl=64), "
        f"udp(sp=40000, dp={TRAFGEN_PORT}), fill(0x00, {payload}) }}\n"
    )


def _trafgen_trial(lab: Lab, config: Path, pps: int, duration: float) -> Finished:
    # -n: the intended count, so a generator that keeps up ends by itself on time and its
    # own sending time is exact (stopped by SIGINT, 0.6.8's reported time is not: a
    # 2 s run reported 30,000 packets of 10 kpps in 2.15 s). One that cannot keep up is
    # stopped 2 s late, and its rate is its count over the wall time to the SIGINT.
    # --no-sock-mem: trafgen otherwise raises the machine's socket memory defaults for
    # its run (0.6.8 lists -A in its help but does not accept it: the long form only).
    # -Q: it otherwise moves the NIC's IRQ affinity. -b paces with sendto(2), one
    # process; without -b it fills a TX_RING as fast as it can on every CPU.
    argv = [
        "trafgen", "-o", "eth0", "-i", str(config), "-b", f"{pps}pps",
        "-n", str(round(pps * duration)), "--no-sock-mem", "-Q",
    ]  # fmt: skip
    return _run_measured(lab.namespaces[Role.CLIENT], argv, duration + 2)


def _parse_trafgen(out: str) -> tuple[int | None, float | None]:
    sent = _TRAFGEN_SENT.search(out)
    times = _TRAFGEN_TIME.findall(out)
    # Workers send side by side: the sending time is the longest of them.
    seconds = max((int(s) + int(us) / 1e6 for s, us in times), default=None)
    return (int(sent[1]) if sent else None), seconds


def measure(
    lab: Lab,
    *,
    generator: str,
    frame: int,
    pps: int,
    repetition: int,
    duration: float,
    configs: dict[int, Path],
) -> Measured:
    load1 = _load1()
    server_rx_before, _ = _counters(lab, Role.SERVER)
    _, client_tx_before = _counters(lab, Role.CLIENT)
    received: int | None = None
    if generator == IPERF2:
        finished = _iperf2_trial(lab, frame, pps, duration)
        sent, seconds, received = _parse_iperf2(finished.stdout, duration)
    else:
        finished = _trafgen_trial(lab, configs[frame], pps, duration)
        sent, trafgen_seconds = _parse_trafgen(finished.stdout)
        if finished.interrupted or not trafgen_seconds:
            seconds = finished.wall_seconds
        else:
            seconds = trafgen_seconds
    time.sleep(0.2)  # the last frames are still in the DUT's queues
    server_rx_after, _ = _counters(lab, Role.SERVER)
    _, client_tx_after = _counters(lab, Role.CLIENT)
    if sent is None:
        print(f"{generator} {frame} B {pps} pps: no count in\n{finished.stdout}", file=sys.stderr)
    return Measured(
        generator=generator,
        frame=frame,
        intended_pps=pps,
        repetition=repetition,
        sent=sent,
        seconds=seconds,
        client_tx=client_tx_after - client_tx_before,
        server_rx=server_rx_after - server_rx_before,
        received=received,
        cpu_seconds=finished.cpu_seconds,
        load1=load1,
    )


def idle_chatter(lab: Lab, seconds: float) -> tuple[int, int]:
    """Packets the server's eth0 receives, and the client's sends, with no test running:
    what counting at the interface adds to a trial that is not the generator's."""
    server_rx, _ = _counters(lab, Role.SERVER)
    _, client_tx = _counters(lab, Role.CLIENT)
    time.sleep(seconds)
    server_rx_after, _ = _counters(lab, Role.SERVER)
    _, client_tx_after = _counters(lab, Role.CLIENT)
    return server_rx_after - server_rx, client_tx_after - client_tx


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:+.2f}"


def _spread(values: Sequence[float], scale: float = 1.0, fmt: str = "{:.1f}") -> str:
    if not values:
        return "-"
    low, mid, high = min(values), statistics.median(values), max(values)
    if len(values) == 1:
        return fmt.format(mid * scale)
    return f"{fmt.format(mid * scale)} ({fmt.format(low * scale)}…{fmt.format(high * scale)})"


def table(rows: Sequence[Measured]) -> str:
    """One Markdown row per generator, frame and rate; medians (min…max) over repetitions."""
    lines = [
        "| generator | frame B | intended pps | offered pps | offered - intended % "
        "| server rx / sent % | receiver count / sent % | client tx - sent "
        "| CPU % of a core | load1 |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    groups: dict[tuple[str, int, int], list[Measured]] = {}
    for row in rows:
        groups.setdefault((row.generator, row.frame, row.intended_pps), []).append(row)
    for (generator, frame, pps), group in sorted(groups.items()):
        counted = [r for r in group if r.sent]
        offered = [r.offered_pps for r in counted if r.offered_pps is not None]
        accuracy = [r.accuracy for r in counted if r.accuracy is not None]
        delivered = [r.server_rx / r.sent for r in counted if r.sent]
        receiver = [r.received / r.sent for r in counted if r.received is not None and r.sent]
        tx_minus_sent = [float(r.client_tx - r.sent) for r in counted if r.sent is not None]
        cpu = [r.cpu_seconds / r.seconds for r in group]
        loads = [r.load1 for r in group if r.load1 is not None]
        lines.append(
            f"| {generator} | {frame} | {pps:,} | {_spread(offered, fmt='{:,.0f}')} "
            f"| {_spread(accuracy, 100, '{:+.2f}')} | {_spread(delivered, 100, '{:.2f}')} "
            f"| {_spread(receiver, 100, '{:.2f}')} | {_spread(tx_minus_sent, fmt='{:+.0f}')} "
            f"| {_spread(cpu, 100, '{:.0f}')} | {_spread(loads, fmt='{:.2f}')} |"
        )
    return "\n".join(lines)


def ceilings(rows: Sequence[Measured]) -> str:
    """Per generator and frame: the highest intended rate below which every repetition of
    every rate paced within +-1 % (one miss below stops it: a ceiling, not a lucky rate)."""
    lines = ["| generator | frame B | paces within ±1 % up to (pps) | first miss (pps) |"]
    lines.append("|---|---:|---:|---:|")
    per: dict[tuple[str, int], dict[int, list[Measured]]] = {}
    for row in rows:
        per.setdefault((row.generator, row.frame), {}).setdefault(row.intended_pps, []).append(row)
    for (generator, frame), by_rate in sorted(per.items()):
        ceiling: int | None = None
        miss: int | None = None
        for pps in sorted(by_rate):
            accuracies = [r.accuracy for r in by_rate[pps]]
            if all(a is not None and abs(a) <= TOLERANCE for a in accuracies):
                ceiling = pps
            else:
                miss = pps
                break
        shown = "below the lowest rate" if ceiling is None else f"{ceiling:,}"
        lines.append(
            f"| {generator} | {frame} | {shown} | {'-' if miss is None else f'{miss:,}'} |"
        )
    return "\n".join(lines)


def _rates(text: str) -> list[int]:
    # parse_rate reads SI prefixes ("10k" 10,000, "1M" 10^6): packets are counted so.
    return [int(parse_rate(part)) for part in text.split(",") if part.strip()]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--duration", type=float, default=5.0, help="seconds per trial")
    parser.add_argument("--repetitions", type=int, default=3)
    parser.add_argument("--sizes", default="64,512,1518", help="frame sizes with FCS")
    parser.add_argument("--rates", default="10k,50k,100k,150k,200k,300k,500k,1M")
    parser.add_argument("--link", default="unshaped", help="the lab's links (gbe, fe, ...)")
    parser.add_argument("--lab-name", default="bench-pacing")
    parser.add_argument("--generators", default=f"{IPERF2},{TRAFGEN}")
    parser.add_argument("--json", action="store_true", help="also print every trial as JSON")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    rates = _rates(args.rates)
    generators = [name.strip() for name in args.generators.split(",")]
    if TRAFGEN in generators and shutil.which("trafgen") is None:
        print(
            "trafgen is not installed (Debian: apt-get install netsniff-ng): measuring iperf2 only",
            file=sys.stderr,
        )
        generators.remove(TRAFGEN)
    raise_on_sigterm()  # SIGTERM unwinds like Ctrl-C: the lab comes down either way
    spec = LabSpec(Topology.ROUTER, parse_link(args.link), name=args.lab_name)
    rows: list[Measured] = []
    server: Process | None = None
    with tempfile.TemporaryDirectory() as tmp, Lab.up(spec) as lab:
        try:
            if IPERF2 in generators:
                server = lab.hosts[Role.SERVER].start(
                    ["iperf", "-s", "-u", "-e", "-p", str(IPERF_PORT)]
                )
            # Both neighbour tables filled before the first trial: a frame the DUT must
            # hold while it resolves the server's MAC is a frame it may drop.
            # (The lab has no ping; a few datagrams do it. Nothing listens on the discard
            # port, so the server's answer is at most an ICMP port unreachable.)
            lab.hosts[Role.CLIENT].run(
                [
                    "iperf",
                    "-c",
                    lab.server_address,
                    "-u",
                    "-p",
                    str(TRAFGEN_PORT),
                    "-b",
                    "10pps",
                    "-t",
                    "0.5",
                ]
            )
            dut_mac = lab.hosts[Role.DUT].read_file("/sys/class/net/lan/address").strip()
            configs: dict[int, Path] = {}
            for frame in sizes:
                configs[frame] = Path(tmp) / f"udp{frame}.cfg"
                configs[frame].write_text(
                    trafgen_config(dut_mac, lab.client_address, lab.server_address, frame)
                )
            chatter_rx, chatter_tx = idle_chatter(lab, args.duration)
            for repetition in range(args.repetitions):
                for frame in sizes:
                    for pps in rates:
                        # Alternate who goes first, so drift cannot favour one generator.
                        order = generators if repetition % 2 == 0 else generators[::-1]
                        for generator in order:
                            row = measure(
                                lab,
                                generator=generator,
                                frame=frame,
                                pps=pps,
                                repetition=repetition,
                                duration=args.duration,
                                configs=configs,
                            )
                            rows.append(row)
                            print(
                                f"rep {repetition} {generator} {frame} B {pps} pps: "
                                f"offered {_percent(row.accuracy)} %, sent {row.sent}, "
                                f"rx {row.server_rx}, load {row.load1}",
                                file=sys.stderr,
                            )
        finally:
            if server is not None:
                server.stop()
    print(
        f"## Generator pacing: router lab, link {args.link}, {args.duration:g} s trials, "
        f"{args.repetitions} repetitions\n"
    )
    print(
        f"Idle chatter over {args.duration:g} s: server eth0 rx {chatter_rx}, "
        f"client eth0 tx {chatter_tx} packets.\n"
    )
    print(table(rows))
    print()
    print(ceilings(rows))
    if args.json:
        emit(
            "generator_pacing",
            {"duration": args.duration, "rows": [dataclasses.asdict(row) for row in rows]},
        )


if __name__ == "__main__":
    main()
