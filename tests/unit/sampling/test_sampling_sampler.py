"""The sampler script itself, run for real under dash, busybox sh and busybox-only PATH,
on the fake R4S tree and on this machine."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from sampling_fixtures import R4S_BOARD, run_sampler

from wirespeed.sampling.script import SCRIPT_NAME, sampler_argv
from wirespeed.sampling.stream import parse_stream

BUSYBOX = shutil.which("busybox")


@pytest.fixture(scope="module")
def busybox_path(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A PATH of busybox applets only: no GNU tools, no bash, no mawk."""
    if BUSYBOX is None:
        pytest.skip("busybox is not installed")
    directory = tmp_path_factory.mktemp("busybox-bin")
    listing = os.popen(f"{BUSYBOX} --list").read().split()
    for applet in [*listing, "busybox"]:
        (directory / applet).symlink_to(BUSYBOX)
    return str(directory)


def test_parameters_travel_as_arguments_never_inside_the_script() -> None:
    argv = sampler_argv(0.1, "/tmp/it's; rm -rf /", max_runtime=12.5)
    assert argv[:2] == ["sh", "-c"] and argv[3] == SCRIPT_NAME
    assert argv[4:] == ["0.1", "/tmp/it's; rm -rf /", "13"]
    assert "rm -rf" not in argv[2]


@pytest.mark.parametrize("interval", [0.0, 0.01, -1.0, 7200.0])
def test_an_interval_out_of_range_is_refused(interval: float) -> None:
    with pytest.raises(ValueError, match="interval"):
        sampler_argv(interval)


def test_the_r4s_tree_under_dash_gives_its_zones_policies_and_kernel_events() -> None:
    stream = parse_stream(run_sampler(R4S_BOARD, seconds=0.6, interval=0.2))
    assert stream.ready and stream.exit_reason == "max-runtime"
    assert len(stream.snapshots) >= 3
    zones = {zone.name: zone for zone in stream.info.thermal_zones}
    assert zones["thermal_zone0"].type == "soc-thermal"
    assert zones["thermal_zone0"].trips[0] == ("passive", 70.0)
    assert zones["thermal_zone1"].type == "gpu-thermal"
    policies = {policy.name: policy for policy in stream.info.policies}
    assert policies["policy0"].cpus == (0, 1, 2, 3)
    assert policies["policy4"].hardware_max_khz == 1800000
    last = stream.snapshots[-1]
    assert last.temperatures == {"thermal_zone0": 52.777, "thermal_zone1": 50.555}
    assert last.cpufreq["policy0"].cur_khz == 1416000
    assert sorted(last.cpus) == [0, 1, 2, 3, 4, 5]
    assert last.interrupts is not None and last.interrupts.line("27") is not None
    assert [line.event for line in stream.kernel] == [
        "tx-hang",
        "tx-hang",
        "adapter-reset",
        "link-up",
    ]


def test_the_same_tree_under_busybox_only(busybox_path: str) -> None:
    assert BUSYBOX is not None
    text = run_sampler(R4S_BOARD, seconds=0.6, interval=0.2, shell="sh", path=busybox_path)
    stream = parse_stream(text)
    assert stream.ready and stream.exit_reason == "max-runtime"
    assert len(stream.snapshots) >= 3
    assert stream.snapshots[-1].temperatures["thermal_zone0"] == 52.777


def test_this_machine_under_busybox_sh_sees_cpus_and_interfaces(busybox_path: str) -> None:
    stream = parse_stream(run_sampler(Path("/"), seconds=1, interval=0.1, path=busybox_path))
    assert len(stream.snapshots) >= 8
    first, last = stream.snapshots[0], stream.snapshots[-1]
    assert set(last.cpus) == set(first.cpus) and "lo" in last.netdev
    assert 0.95 <= last.t - first.t <= 1.4  # stamped by the device's own uptime clock
    assert first.processes is not None  # the first tick scans processes (the baseline)
