"""A board that throttles while a benchmark runs: the real sampler on a copy of the R4S
tree (tests/fixtures/boards/r4s-sampling), whose files the test changes mid-run as the
kernel would, and the THROTTLED findings judged from what the sampler saw."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

from wirespeed.analysis.findings import judge_monitor
from wirespeed.hosts.local import LocalHost
from wirespeed.model import FindingKind
from wirespeed.sampling.session import Sampler
from wirespeed.sampling.summary import summarize

R4S_BOARD = Path(__file__).resolve().parents[2] / "fixtures" / "boards" / "r4s-sampling"
POLICY4 = Path("sys/devices/system/cpu/cpufreq/policy4")
ZONE0 = Path("sys/class/thermal/thermal_zone0")


def _write(path: Path, text: str) -> None:
    """As sysfs changes a value: the sampler reads the old text or the new, never half
    of it (a file written in place could be read empty between truncate and write)."""
    spare = path.with_name(path.name + ".new")
    spare.write_text(text)
    os.replace(spare, path)


def test_a_clock_lowered_and_a_zone_at_its_trip_point_mid_run_are_throttling(
    tmp_path: Path,
) -> None:
    board = tmp_path / "r4s"
    shutil.copytree(R4S_BOARD, board, symlinks=True)
    # What the board reads before: the A72s at their top, the SoC below its first trip.
    assert (board / POLICY4 / "scaling_cur_freq").read_text().strip() == "1800000"
    assert (board / POLICY4 / "cpuinfo_max_freq").read_text().strip() == "1800000"
    assert (board / ZONE0 / "trip_point_0_temp").read_text().strip() == "70000"
    assert int((board / ZONE0 / "temp").read_text()) < 70000

    running = Sampler.start(LocalHost("r4s"), interval=0.2, root=str(board), max_runtime=30)
    try:
        assert running.wait_for_ticks(2), running.process.stderr()
        time.sleep(1.0)
        # The SoC reached its first (passive) trip point, and the kernel's thermal
        # governor took the A72s down to 816 MHz.
        _write(board / ZONE0 / "temp", "70000\n")
        _write(board / POLICY4 / "scaling_cur_freq", "816000\n")
        # Gauges are read about once a second: two seconds see the new values for sure.
        time.sleep(2.0)
    finally:
        samples = running.stop()

    assert not samples.partial, samples.reason
    summary = summarize(samples)
    clocks = {clock.policy: clock for clock in summary.clocks}
    assert (clocks["policy4"].min_khz, clocks["policy4"].max_khz) == (816000, 1800000)
    assert clocks["policy4"].hardware_max_khz == 1800000
    assert clocks["policy0"].min_khz == clocks["policy0"].max_khz == 1416000

    throttled = [f.message for f in judge_monitor(summary) if f.kind is FindingKind.THROTTLED]
    assert throttled == [
        "r4s policy4 (cpus 4,5) ran as low as 816 MHz of 1800 MHz",
        "r4s soc-thermal: 70 °C reached its trip point 70 °C",
    ]
