"""A trial on a board with every gauge: the real sampler run on a copy of the NanoPi R4S
tree (tests/fixtures/boards/r4s-sampling: clocks, thermal zones, its kernel log lines)
with the INA3221 power monitor and the vcgencmd stand-in of tests/fixtures/boards/power
added (0x50005: under-voltage and throttled), its TCP goodput at line rate.

The kernel log's records keep their messages; their stamps are moved to this machine's
uptime (the sampler reads the real /proc/uptime), so that they fall in the sampled span.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from support.samples import START, measured, wan_path
from wirespeed.model import (
    DirectionResult,
    Flow,
    MonitorRecord,
    Proto,
    Result,
    TestCase,
    TestSpec,
    Tool,
    Trial,
    TrialOutcome,
    TrialStatus,
)
from wirespeed.sampling.model import SampleSet
from wirespeed.sampling.script import sampler_argv
from wirespeed.sampling.stream import parse_stream
from wirespeed.sampling.summary import summarize

BOARDS = Path(__file__).resolve().parents[1] / "fixtures" / "boards"
POWER = BOARDS / "power"


def board_tree(tmp_path: Path) -> Path:
    tree = tmp_path / "board"
    shutil.copytree(BOARDS / "r4s-sampling", tree)
    shutil.copytree(POWER / "ina3221-5v" / "sys" / "class" / "hwmon", tree / "sys/class/hwmon")
    shutil.copy(POWER / "ina3221-5v" / "vcgencmd-throttled", tree)
    uptime = float(Path("/proc/uptime").read_text().split()[0])
    kmsg = tree / "dev" / "kmsg"
    records = kmsg.read_text().splitlines()
    first = int(records[0].split(",")[2])
    moved = []
    for record in records:
        head, _, message = record.partition(";")
        prio, seq, usec, flags = head.split(",")
        # the first record 0.6 s after now, the others as far apart as they were, / 20
        stamp = int(uptime * 1e6) + 600_000 + (int(usec) - first) // 20
        moved.append(f"{prio},{seq},{stamp},{flags};{message}")
    kmsg.write_text("\n".join(moved) + "\n")
    return tree


def sampled_board(tmp_path: Path, seconds: float = 2.5, host: str = "r4s") -> MonitorRecord:
    tree = board_tree(tmp_path)
    argv = sampler_argv(0.5, str(tree), max_runtime=seconds)
    env = {"PATH": f"{POWER / 'bin'}:{os.environ['PATH']}"}
    done = subprocess.run(
        argv, capture_output=True, text=True, timeout=seconds + 10, env=env, check=False
    )
    assert done.returncode == 0, done.stderr
    stream = parse_stream(done.stdout)
    samples = SampleSet(
        host,
        stream.interval or 0.5,
        stream.start_uptime or 0.0,
        stream.device_epoch,
        stream.info,
        stream.snapshots,
        stream.kernel,
        raw=done.stdout,
    )
    return MonitorRecord(host, "dut", 0.5, done.stdout, summarize(samples).to_json())


def line_rate_trial(monitor: MonitorRecord, repetition: int = 1) -> TrialOutcome:
    """An iperf3 TCP upload at 941 Mbit/s (the gigabit ceiling) with the board's samples."""
    test = TestCase("#1", "TCP", Tool.IPERF3, TestSpec(duration=10))
    flow = measured(941.0, 10.0)
    result = Result(
        tool=Tool.IPERF3,
        protocol=Proto.TCP,
        directions=(DirectionResult(flow=Flow.UP, sent=flow, received=flow),),
        tool_version="3.12",
    )
    return TrialOutcome(
        trial=Trial(test=test, path=wan_path(), repetition=repetition),
        status=TrialStatus.OK,
        started_at=START,
        finished_at=START + 11,
        result=result,
        monitors=(monitor,),
    )
