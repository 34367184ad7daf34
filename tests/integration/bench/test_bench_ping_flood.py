"""A ping flood on the foreign bench, as its user runs one: from the laptop (over SSH,
Debian's iputils ping as root) through the router's NAT to the workstation beyond its
WAN, the bench's links 10 Mbit/s. The truth is the links' frame rate: one request in
flight at a time, each 1,400-byte request waits for the links to carry the one before
it (852.6 a second, the bench's tbf counting the wire's bytes as the lab's does). No
server runs on the workstation: its kernel answers.

From the router itself the flood cannot run: OpenWrt's ping is busybox's, which has no
flood mode. The trial fails and says what to install; nothing is left running.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from bench_runs import HOSTS, MakeBench, outcomes, run_plan

from wirespeed.model import Side, TrialStatus
from wirespeed.search.frames import MAC_HEADER_AND_FCS, frames_per_second
from wirespeed.tools.ping_flood import IP_AND_ICMP_HEADERS

pytestmark = [pytest.mark.root, pytest.mark.slow]

# 10 Mbit/s: a request's frame takes 1.17 ms, ten times what the machine's own round
# trip costs on a busy core, so the links, not the hosts, hold the flood (as in the lab).
LINK_MBIT = 10
SIZE = 1400


def link_frame_rate() -> float:
    return frames_per_second(LINK_MBIT * 1_000_000, SIZE + IP_AND_ICMP_HEADERS + MAC_HEADER_AND_FCS)


PLAN = f"""\
    {HOSTS.replace(chr(10), chr(10) + "    ")}
    paths:
      - {{name: through, topology: nat, client: laptop, server: workstation, dut: router,
         link: 10mbit}}
      - {{name: from-router, topology: endpoint, client: router, server: workstation,
         link: 10mbit}}
    tests:
      - id: flood
        tool: ping-flood
        paths: [through]
        options: {{duration: 3, size: {SIZE}}}
      - id: busybox
        tool: ping-flood
        paths: [from-router]
        options: {{duration: 1}}
"""


def test_a_ping_flood_through_the_benchs_router_runs_at_the_links_frame_rate(
    foreign_bench: MakeBench, tmp_path: Path
) -> None:
    bench = foreign_bench(link_mbit=LINK_MBIT, forward=None)
    done = run_plan(bench, tmp_path, PLAN)
    # The router's flood failed: the run says so in its exit status.
    assert done.returncode != 0, done.stdout
    assert "Traceback" not in done.stderr
    by_test = {outcome.trial.test.id: outcome for outcome in outcomes(tmp_path)}
    assert sorted(by_test) == ["busybox", "flood"]

    flood = by_test["flood"]
    assert flood.status is TrialStatus.OK, flood.reason
    assert flood.result is not None
    assert [raw.side for raw in flood.raw] == [Side.CLIENT]  # nothing at the far end
    assert flood.raw[0].argv[:2] == ("ping", "-f")
    figures = {m.item: m.value for m in flood.result.measurements}
    truth = link_frame_rate()
    # SSH's start-up is outside the flood's deadline; a busy core only slows it.
    assert truth * 0.8 < figures["flood rate"] < truth * 1.03, (truth, figures)
    assert figures["flood loss"] == 0.0
    assert figures["flood rtt mean"] == pytest.approx(1000 / truth, rel=0.25)

    busybox = by_test["busybox"]
    assert busybox.status is not TrialStatus.OK
    assert busybox.reason == (
        "ping exited with status 1: this ping has no flood mode (busybox's has none): "
        "install iputils-ping on the client"
    )
    # Nothing of either trial runs on after the run, on any of the bench's machines.
    assert bench_processes(bench.namespaces) == []


def bench_processes(namespaces: list[str]) -> list[str]:
    """ping or a wirespeed work directory's wrapper still alive in the bench."""
    found = []
    for namespace in namespaces:
        listed = subprocess.run(
            ["ip", "netns", "pids", namespace], capture_output=True, text=True, check=False
        )
        for pid in listed.stdout.split():
            try:
                argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if argv[0].endswith(b"ping") or b"/tmp/wirespeed" in b" ".join(argv):
                found.append(f"{namespace}: {b' '.join(argv).decode()[:80]}")
    return found
