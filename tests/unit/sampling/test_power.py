"""The board's power and throttling: hwmon power channels of real power monitors, the
Raspberry Pi firmware's throttling bits, a meter's output; and the sampler run for real
on fake trees of them."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from sampling_fixtures import FIXTURES, run_sampler

from wirespeed.analysis.findings import judge_monitor
from wirespeed.model import FindingKind
from wirespeed.sampling.meter import parse_meter, parse_meter_log
from wirespeed.sampling.model import SampleSet
from wirespeed.sampling.power import (
    board_power,
    channel_power,
    during,
    parse_throttled,
    throttle_state,
)
from wirespeed.sampling.stream import parse_stream
from wirespeed.sampling.summary import MonitorSummary, summarize
from wirespeed.sampling.sysfs import device_info, hwmon_readings

POWER = FIXTURES / "boards" / "power"


def _files(root: Path) -> dict[str, str]:
    return {
        "/" + str(path.relative_to(root)): path.read_text()
        for path in (root / "sys").rglob("*")
        if path.is_file()
    }


def test_the_ina219_ups_gives_the_drivers_own_power_not_volts_times_amps() -> None:
    files = _files(POWER / "ina219-ups")
    readings = hwmon_readings(files)
    assert readings["hwmon2/in1"] == pytest.approx(4.228)
    assert readings["hwmon2/curr1"] == pytest.approx(-0.040)
    # power1_input (176000 uW) wins over 4.228 V x 40 mA = 169 mW
    assert channel_power(readings) == {"hwmon2/1": pytest.approx(0.176)}
    # in0 is the shunt's drop, with no current of its own: no channel
    assert "hwmon2/0" not in channel_power(readings)


def test_the_ina3221_counts_its_board_input_once_and_its_shunts_never() -> None:
    files = _files(POWER / "ina3221-5v")
    info = device_info(files)
    readings = hwmon_readings(files)
    channels = channel_power(readings, info.hwmon_names)
    assert channels == {
        "hwmon2/1": pytest.approx(2.2),  # 5 V x 0.44 A: seed 000's idle R4S
        "hwmon2/2": pytest.approx(0.6),
        "hwmon2/3": pytest.approx(0.3),
    }
    # VDD_IN feeds the other rails: the board's power is it alone, not the sum
    assert board_power(readings, info.hwmon_names, info.hwmon_labels) == pytest.approx(2.2)
    # without the labels nothing says which feeds which: the sum
    assert board_power(readings, info.hwmon_names) == pytest.approx(3.1)
    # without the chip's name its shunt channel 4 (uV read as mV) would count
    assert "hwmon2/4" in channel_power(readings)


def test_no_power_channel_is_no_power() -> None:
    assert board_power({"hwmon0/temp1": 41.0, "hwmon0/in1": 5.0}) is None


@pytest.mark.parametrize(
    ("said", "bits"),
    [
        ("throttled=0x50005", 0x50005),
        ("throttled=0x0", 0),
        ("throttled=0x80000\n", 0x80000),
        ('error=1 error_msg="Command not registered"', None),
        ("", None),
    ],
)
def test_vcgencmd_get_throttled_is_read_as_bits(said: str, bits: int | None) -> None:
    assert parse_throttled(said) == bits


def test_0x50005_is_under_voltage_and_throttled_now_and_since_boot() -> None:
    state = throttle_state(0x50005)
    assert state.now == ("under-voltage", "throttled")
    assert state.occurred == ("under-voltage", "throttled")
    assert throttle_state(0x80008).now == ("soft temperature limit",)


def test_only_what_happened_during_the_span_counts() -> None:
    # under-voltage since boot, before the trial: not the trial's
    assert during(0x10000, [0x10000, 0x10000]) == ()
    # a short capping between two readings shows in its sticky bit
    assert during(0x0, [0x0, 0x20000]) == ("arm frequency capped",)
    assert during(0x0, [0x4]) == ("throttled",)


@pytest.mark.parametrize(
    ("output", "watts"),
    [
        ("4.2", 4.2),
        ("4.2 W\n", 4.2),
        ("4200 mW", 4.2),
        ("1.02 A 5.1 V", 1.02 * 5.1),
        ("5.1V 1.02A", 1.02 * 5.1),
        ("1020 mA 5.10 V", 1.02 * 5.1),
        ("Power: 4.2W Voltage: 5.1V", 4.2),
        ("1.02 A", None),  # a current alone is no power
        ("V=5.10 I=1.02", None),  # two bare numbers: which is which?
        ("", None),
        ("error: no device", None),
    ],
)
def test_a_meters_output_is_read_as_watts(output: str, watts: float | None) -> None:
    found = parse_meter(output)
    assert found == (None if watts is None else pytest.approx(watts))


def test_the_meter_log_splits_idle_from_load() -> None:
    log = parse_meter_log(
        "@@meter 1\n0.010\t2.2\t2.2 W\n1.010\t-\toops\n2.000\t2.3\t2.3\n"
        "@@load 3.000\n3.010\t5.0\t5 W\n4.010\t5.2\t5.2 W\n@@end 4.500\n4.600\t2.4\t2.4\n"
    )
    assert log.idle() == (2.2, 2.3)
    assert log.load() == (5.0, 5.2)
    assert log.readings[1] == (1.010, None)


def _sampled(root: Path, tmp_path: Path, seconds: float, *, pi: bool = True) -> SampleSet:
    """The sampler's samples of a copy of the tree; pi: with the vcgencmd stand-in."""
    tree = tmp_path / "tree"
    shutil.copytree(root, tree)
    path = f"{POWER / 'bin'}:{os.environ['PATH']}" if pi else os.environ["PATH"]
    raw = run_sampler(tree, seconds, interval=0.5, path=path)
    parsed = parse_stream(raw)
    assert parsed.version == 3
    return SampleSet(
        host="board",
        interval=0.5,
        start_uptime=parsed.start_uptime or 0.0,
        device_epoch=parsed.device_epoch,
        info=parsed.info,
        snapshots=parsed.snapshots,
        raw=raw,
    )


@pytest.mark.process
def test_the_sampler_reads_the_ina3221_and_vcgencmd_on_the_fake_tree(tmp_path: Path) -> None:
    samples = _sampled(POWER / "ina3221-5v", tmp_path, seconds=2.0)
    gauges = [s for s in samples.snapshots if s.hwmon]
    assert len(gauges) >= 2
    assert gauges[0].hwmon["hwmon2/curr1"] == pytest.approx(0.44)
    assert samples.info.hwmon_labels["hwmon2/in1"] == "VDD_IN"
    # vcgencmd at the first tick (a process scan) and the last
    assert samples.snapshots[0].throttled == 0x50005
    assert samples.snapshots[-1].throttled == 0x50005
    summary = MonitorSummary.from_json(summarize(samples).to_json())
    timeline = summary.power_timeline
    assert timeline is not None
    assert timeline.power_w == pytest.approx([2.2] * len(timeline.t))
    assert set(timeline.temperature_c) == {38.0}
    assert summary.throttled == ("under-voltage", "throttled")
    kinds = {finding.kind for finding in judge_monitor(summary)}
    assert {FindingKind.UNDER_VOLTAGE, FindingKind.THROTTLED} <= kinds


@pytest.mark.process
def test_without_vcgencmd_nothing_is_said_of_throttling(tmp_path: Path) -> None:
    samples = _sampled(POWER / "ina219-ups", tmp_path, seconds=1.0, pi=False)
    assert all(s.throttled is None for s in samples.snapshots)
    summary = summarize(samples)
    assert summary.throttled == ()
    assert summary.power_timeline is not None
    watts = summary.power_timeline.power_w
    assert watts == pytest.approx([0.176] * len(watts))
