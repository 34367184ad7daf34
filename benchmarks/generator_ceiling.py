"""Generator ceilings: how many packets per second each of the search's generators offers
as asked, with one sending process and with one per core, through the search's own
trial code (run/search_trial.py), in a router lab whose DUT has no limit.

For each generator (iperf2, tcpreplay), frame size (64, 512, 1518 B with FCS) and number
of sending processes (`cpus:` 1 and 2):

- the highest rate of a ramp (10k, 50k, 100k, then 50k steps) offered within 1 % of the
  intended rate, and the highest of those the lab also forwarded without loss;
- the pacing error (offered / intended - 1) at 10k, 50k and 100k pps;
- CPU per packet at 50k pps: the user + system time of every process the trial started
  and reaped (the generator; for iperf2 also its receiver), over the packets sent.

In the lab every packet is also forwarded by the DUT's namespace on the sending core
(veth hands a packet on within the sender's system call), so those ceilings are this
machine's forwarding as much as the generator's. `--sink` measures the generators alone,
as toward a real NIC: into a veth pair whose far end drops every frame (a MAC address
nobody has), the same ramp, offered rate by the generator's own account.

And, because a search's NDR needs a generator that paces each packet and not only each
second: the peak rate in 50 ms at the server while 50,000 packets/s of 64 B are asked
for 1 s from trafgen (`-b`, which the search refuses) and tcpreplay (`--pps`).

The load average is printed with every row: on a shared machine, rerun when it is lower
if the figures look disturbed. Needs root, tcpreplay and netsniff-ng (trafgen).

    sudo .venv/bin/python -m benchmarks.generator_ceiling [--duration 2]
        [--sizes 64,512,1518] [--cpus 1,2] [--top 600k] [--lab-name bench-ceiling] [--sink]
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from wirespeed.cli.exit import raise_on_sigterm
from wirespeed.hosts.netns import NetnsHost
from wirespeed.lab.lab import Lab, LabSpec
from wirespeed.lab.links import parse_link
from wirespeed.model import Role, Topology
from wirespeed.run import search_generators as generators
from wirespeed.run.search_legs import Leg, lab_legs
from wirespeed.run.search_load import Sending, measuring
from wirespeed.sampling.procfs import parse_loadavg, parse_net_dev
from wirespeed.search.frames import udp_payload_for_frame
from wirespeed.search.model import TrialResult
from wirespeed.tools import iperf2_pps, tcpreplay
from wirespeed.units import parse_rate

TOLERANCE = 0.01
PACING_RATES = (10_000, 50_000, 100_000)
CPU_RATE = 50_000
RAMP_STEP = 50_000
BURST_RATE = 50_000
BURST_BIN = 0.05


def _load() -> str:
    load = parse_loadavg(Path("/proc/loadavg").read_text())
    return "?" if load is None else f"{load[0]:.2f}"


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@dataclass
class Row:
    generator: str
    cpus: int
    frame: int
    within: int | None = None  # highest rate offered within 1 %
    lossless: int | None = None  # highest of those forwarded without loss
    first_miss: int | None = None
    pacing: dict[int, float] | None = None  # intended -> offered/intended - 1
    cpu_us: float | None = None  # CPU microseconds per packet at CPU_RATE
    load: str = ""


def _trial(measure: object, load: float, duration: float) -> tuple[TrialResult, float]:
    assert callable(measure)
    before = _children_cpu()
    result: TrialResult = measure(load, duration)
    return result, _children_cpu() - before


def _ramp(top: int) -> list[int]:
    return [*PACING_RATES, *range(PACING_RATES[-1] + RAMP_STEP, top + 1, RAMP_STEP)]


def measure_row(
    legs: Sequence[Leg], generator: str, *, cpus: int, frame: int, duration: float, top: int
) -> Row:
    sending = Sending({leg.sender.name: generator for leg in legs}, cpus)
    row = Row(generator, cpus, frame, pacing={}, load=_load())
    assert row.pacing is not None
    with measuring(legs, frame, sending) as measure:
        for rate in _ramp(top):
            result, cpu = _trial(measure, rate, duration)
            error = result.offered / rate - 1
            if rate in PACING_RATES:
                row.pacing[rate] = error
            if rate == CPU_RATE and result.sent:
                row.cpu_us = cpu / result.sent * 1e6
            if error < -TOLERANCE:
                # Once more: a busy moment of the machine is not the generator's ceiling.
                result, _ = _trial(measure, rate, duration)
                error = result.offered / rate - 1
            print(
                f"  {generator} x{cpus} {frame} B {rate:,} pps: offered {error * 100:+.2f} %, "
                f"lost {result.sent - result.received:,} of {result.sent:,}, load {_load()}",
                file=sys.stderr,
            )
            if abs(error) > TOLERANCE:
                row.first_miss = row.first_miss or rate
                if rate > PACING_RATES[-1]:
                    break
                continue
            if row.first_miss is None:
                row.within = rate
                if result.received >= result.sent:
                    row.lossless = rate
    return row


def _server_rx(lab: Lab) -> int:
    """Packets in at the server's eth0 (read in its namespace by a thread: cheap)."""
    return parse_net_dev(lab.hosts[Role.SERVER].read_file("/proc/net/dev"))["eth0"].rx_packets


def peak_in_bins(lab: Lab, argv: Sequence[str], seconds: float) -> tuple[float, int]:
    """(peak pps over any BURST_BIN, packets) at the server while argv sends from the
    client, the server's counter read every BURST_BIN."""
    start = previous = _server_rx(lab)
    sender = lab.hosts[Role.CLIENT].start(argv)
    peak = 0
    deadline = time.monotonic() + seconds + 5
    last = time.monotonic()
    try:
        while sender.poll() is None and time.monotonic() < deadline:
            time.sleep(BURST_BIN)
            now, count = time.monotonic(), _server_rx(lab)
            peak = max(peak, round((count - previous) / (now - last)))
            previous, last = count, now
    finally:
        sender.stop()
    time.sleep(0.1)
    return peak, _server_rx(lab) - start


def bursts(lab: Lab, legs: Sequence[Leg]) -> list[str]:
    leg = legs[0]
    lines = []
    file = generators.prepare_frame(leg, 64)
    try:
        stream = generators.Stream(leg, 1.0, leg.port, generators.TCPREPLAY)
        argv = generators.tcpreplay_argv(stream, file, BURST_RATE, 1.0)
        peak, count = peak_in_bins(lab, argv, 1.0)
        lines.append(f"| tcpreplay --pps | {BURST_RATE:,} | {count:,} | {peak:,.0f} |")
    finally:
        generators.remove_frames([file])
    if shutil.which("trafgen") is not None:
        dut_mac = lab.hosts[Role.DUT].read_file("/sys/class/net/lan/address").strip()
        packet = (
            f"{{ eth(da={dut_mac}), ipv4(saddr={lab.client_address}, "
            f"daddr={lab.server_address}, ttl=64), udp(sp=40000, dp={leg.port}), "
            "fill(0x00, 18) }"
        )
        argv = [
            "trafgen", "--dev", "eth0", "--cpus", "1", "--rate", f"{BURST_RATE}pps",
            "--num", str(BURST_RATE), "--no-sock-mem", "--qdisc-path", "--notouch-irq", packet,
        ]  # fmt: skip
        peak, count = peak_in_bins(lab, argv, 1.0)
        lines.append(f"| trafgen -b | {BURST_RATE:,} | {count:,} | {peak:,.0f} |")
    return lines


SINK_SOURCE, SINK_TARGET = "10.99.77.1", "10.99.77.2"
SINK_MAC = "02:00:00:00:77:02"  # nobody's: the far end drops every frame at once


@contextlib.contextmanager
def sink() -> Iterator[NetnsHost]:
    """A namespace whose eth0 leads to one that drops everything, the target's MAC fixed
    (no ARP): what a generator offers is its own work only."""
    names = (f"gc{os.getpid()}-tx", f"gc{os.getpid()}-rx")
    run = functools.partial(subprocess.run, check=True, capture_output=True)
    try:
        for name in names:
            run(["ip", "netns", "add", name])
        run(["ip", "link", "add", "eth0", "netns", names[0], "type", "veth", "peer", "name",
             "eth0", "netns", names[1]])  # fmt: skip
        for name in names:
            run(["ip", "-n", name, "link", "set", "eth0", "up"])
        run(["ip", "-n", names[0], "addr", "add", f"{SINK_SOURCE}/24", "dev", "eth0"])
        run(["ip", "-n", names[0], "neigh", "add", SINK_TARGET, "lladdr", SINK_MAC, "dev",
             "eth0"])  # fmt: skip
        yield NetnsHost(names[0])
    finally:
        for name in names:
            subprocess.run(["ip", "netns", "del", name], check=False, capture_output=True)


def _sink_trial(
    host: NetnsHost, generator: str, *, cpus: int, frame: int, rate: int, duration: float, pcap: str
) -> tuple[float, int, float]:
    """(offered pps, packets, CPU seconds) of `cpus` processes sending `rate` together."""
    share = max(1, round(rate / cpus))
    if generator == generators.TCPREPLAY:
        argv = tcpreplay.sender_argv("eth0", pcap, share, max(1, round(share * duration)))
    else:
        payload = udp_payload_for_frame(frame)
        argv = iperf2_pps.sender_argv(SINK_TARGET, 5800, payload, share, duration)
    before = _children_cpu()
    processes = [host.start(argv) for _ in range(cpus)]
    for process in processes:
        process.wait(timeout=duration + 30)
    cpu = _children_cpu() - before
    packets = 0
    seconds = 0.0
    for process in processes:
        text = process.stdout() + "\n" + process.stderr()
        if generator == generators.TCPREPLAY:
            replayed = tcpreplay.parse_sender(text)
            packets, seconds = packets + replayed.sent, max(seconds, replayed.seconds)
        else:
            sent = iperf2_pps.parse_sender(text)
            packets, seconds = packets + sent.writes, max(seconds, sent.seconds)
        process.stop()
    return packets / max(seconds, 1e-9), packets, cpu


def sink_row(host: NetnsHost, generator: str, *, cpus: int, frame: int, duration: float,
             top: int) -> Row:  # fmt: skip
    row = Row(generator, cpus, frame, pacing={}, load=_load())
    assert row.pacing is not None
    data = tcpreplay.udp_frame(
        destination_mac=SINK_MAC, source_mac="02:00:00:00:77:01", source=SINK_SOURCE,
        destination=SINK_TARGET, port=5800, frame_bytes=frame,
    )  # fmt: skip
    with tempfile.NamedTemporaryFile(suffix=".pcap") as pcap:
        pcap.write(tcpreplay.pcap_of(data))
        pcap.flush()
        for rate in _ramp(top):
            offered, packets, cpu = _sink_trial(
                host, generator, cpus=cpus, frame=frame, rate=rate, duration=duration,
                pcap=pcap.name,
            )  # fmt: skip
            error = offered / rate - 1
            if rate in PACING_RATES:
                row.pacing[rate] = error
            if rate == CPU_RATE and packets:
                row.cpu_us = cpu / packets * 1e6
            print(
                f"  sink {generator} x{cpus} {frame} B {rate:,} pps: offered "
                f"{error * 100:+.2f} %, load {_load()}",
                file=sys.stderr,
            )
            if abs(error) > TOLERANCE:
                row.first_miss = row.first_miss or rate
                if rate > PACING_RATES[-1]:
                    break
                continue
            if row.first_miss is None:
                row.within = rate  # nothing arrives anywhere: no loss to speak of
    return row


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:+.2f}"


def _count(value: int | None) -> str:
    return "-" if value is None else f"{value:,}"


def table(rows: Sequence[Row]) -> str:
    lines = [
        "| generator | processes | frame | offered within 1 % up to | and lossless | "
        "first miss | 10k | 50k | 100k | CPU µs/packet at 50k | load1 |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        pacing = row.pacing or {}
        cpu = "-" if row.cpu_us is None else f"{row.cpu_us:.1f}"
        lines.append(
            f"| {row.generator} | {row.cpus} | {row.frame} B | {_count(row.within)} | "
            f"{_count(row.lossless)} | {_count(row.first_miss)} | "
            + " | ".join(_pct(pacing.get(rate)) for rate in PACING_RATES)
            + f" | {cpu} | {row.load} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--duration", type=float, default=2.0, help="seconds per trial")
    parser.add_argument("--sizes", default="64,512,1518")
    parser.add_argument("--cpus", default="1,2")
    parser.add_argument("--generators", default="iperf2,tcpreplay")
    parser.add_argument("--top", default="600k", help="the ramp's highest rate")
    parser.add_argument("--lab-name", default="bench-ceiling")
    parser.add_argument("--sink", action="store_true", help="the generators alone (no lab)")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    cpus_list = [int(n) for n in args.cpus.split(",")]
    names = [name.strip() for name in args.generators.split(",")]
    top = int(parse_rate(args.top))
    raise_on_sigterm()  # SIGTERM unwinds like Ctrl-C: the lab comes down either way
    spec = LabSpec(Topology.ROUTER, parse_link("unshaped"), name=args.lab_name)
    rows: list[Row] = []
    print(f"load average at start: {Path('/proc/loadavg').read_text().strip()}", file=sys.stderr)
    if args.sink:
        with sink() as host:
            for frame in sizes:
                for cpus in cpus_list:
                    for name in names:
                        rows.append(
                            sink_row(
                                host,
                                name,
                                cpus=cpus,
                                frame=frame,
                                duration=args.duration,
                                top=top,
                            )
                        )
        print(f"## Generators alone (into a dropping veth), {args.duration:g} s trials\n")
        print(table(rows))
        print(f"\nload average at end: {Path('/proc/loadavg').read_text().strip()}")
        return
    with Lab.up(spec) as lab:
        legs = lab_legs(lab)["up"]
        burst_lines = bursts(lab, legs)
        for frame in sizes:
            for cpus in cpus_list:
                for name in names:
                    rows.append(
                        measure_row(
                            legs, name, cpus=cpus, frame=frame, duration=args.duration, top=top
                        )
                    )
    print(f"## Generator ceilings: router lab, unshaped links, {args.duration:g} s trials\n")
    print(table(rows))
    print()
    print("| 64 B, 1 s | asked pps | packets at the server | peak pps over 50 ms |")
    print("|---|---:|---:|---:|")
    print("\n".join(burst_lines))
    print(f"\nload average at end: {Path('/proc/loadavg').read_text().strip()}")


if __name__ == "__main__":
    main()
