"""The sampler script itself, run for real under dash, busybox sh and busybox-only PATH,
on the fake R4S tree and on this machine."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
from sampling_fixtures import BUSYBOX, R4S_BOARD, run_sampler
from sampling_fixtures import busybox_path as busybox_only

from wirespeed.sampling.script import SCRIPT_NAME, sampler_argv
from wirespeed.sampling.stream import parse_stream


@pytest.fixture(scope="module")
def busybox_path(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A PATH of busybox applets only: no GNU tools, no bash, no mawk."""
    if BUSYBOX is None:
        pytest.skip("busybox is not installed")
    return busybox_only(tmp_path_factory.mktemp("busybox") / "bin")


def test_parameters_travel_as_arguments_never_inside_the_script() -> None:
    argv = sampler_argv(0.1, "/tmp/it's; rm -rf /", max_runtime=12.5)
    assert argv[:2] == ["sh", "-c"] and argv[3] == SCRIPT_NAME
    assert argv[4:] == ["0.1", "/tmp/it's; rm -rf /", "13"]
    assert "rm -rf" not in argv[2]


@pytest.mark.parametrize("interval", [0.0, 0.01, -1.0, 7200.0])
def test_an_interval_out_of_range_is_refused(interval: float) -> None:
    with pytest.raises(ValueError, match="interval"):
        sampler_argv(interval)


@pytest.mark.process
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


@pytest.mark.process
def test_the_same_tree_under_busybox_only(busybox_path: str) -> None:
    assert BUSYBOX is not None
    text = run_sampler(R4S_BOARD, seconds=0.6, interval=0.2, shell="sh", path=busybox_path)
    stream = parse_stream(text)
    assert stream.ready and stream.exit_reason == "max-runtime"
    assert len(stream.snapshots) >= 3
    assert stream.snapshots[-1].temperatures["thermal_zone0"] == 52.777


@pytest.mark.process
def test_this_machine_under_busybox_sh_sees_cpus_and_interfaces(busybox_path: str) -> None:
    stream = parse_stream(run_sampler(Path("/"), seconds=1, interval=0.1, path=busybox_path))
    assert len(stream.snapshots) >= 8
    first, last = stream.snapshots[0], stream.snapshots[-1]
    assert set(last.cpus) == set(first.cpus)
    assert last.netdev is not None and "lo" in last.netdev  # the last tick reads everything
    # Stamped by the device's own uptime clock; the max runtime counts from the start,
    # the first tick comes a little after it.
    assert 0.8 <= last.t - first.t <= 1.4
    assert first.processes is not None  # the first tick scans processes (the baseline)


def _logging_path(directory: Path, log: Path, tools: dict[str, list[str]]) -> str:
    """A PATH whose commands note their name in `log`, then run the real thing."""
    directory.mkdir()
    for name, real in tools.items():
        wrapper = directory / name
        wrapper.write_text(
            f"#!/bin/sh\necho {shlex.quote(name)} >>{shlex.quote(str(log))}\n"
            f'exec {" ".join(shlex.quote(part) for part in real)} "$@"\n'
        )
        wrapper.chmod(0o755)
    return str(directory)


def _commands_at_10_hz(argv: list[str], path: str, log: Path) -> tuple[int, list[str]]:
    """Ticks written and commands run by the sampler in 3 s at 10 Hz."""
    completed = subprocess.run(
        argv, capture_output=True, text=True, timeout=15, env={"PATH": path}, check=False
    )
    assert completed.returncode == 0, completed.stderr
    stream = parse_stream(completed.stdout)
    assert stream.exit_reason == "max-runtime"
    return len(stream.snapshots), log.read_text().split()


def _system_tools(*names: str) -> dict[str, list[str]]:
    found = {name: shutil.which(name) for name in names}
    return {name: [real] for name, real in found.items() if real is not None}


# What makes the sampler cheap at 10 Hz: no process per tick. A sleep per tick costs a
# fork and an exec, most of the sampler's CPU at that rate; the ticker waits in the
# shell's own `read -t` instead. The few commands are the start: awk, date, cat of
# /dev/kmsg, and the shell that ticks.
@pytest.mark.process
def test_at_10_hz_under_busybox_no_command_runs_per_tick(tmp_path: Path) -> None:
    if BUSYBOX is None:
        pytest.skip("busybox is not installed")
    log = tmp_path / "commands"
    log.touch()
    applets = os.popen(f"{BUSYBOX} --list").read().split()
    path = _logging_path(tmp_path / "bin", log, {applet: [BUSYBOX, applet] for applet in applets})
    argv = sampler_argv(0.1, "/", max_runtime=3)
    ticks, commands = _commands_at_10_hz([BUSYBOX, *argv], path, log)
    assert ticks >= 25
    assert "sleep" not in commands
    assert len(commands) <= 8, commands  # a command per tick would be 30 more


@pytest.mark.process
def test_at_10_hz_under_dash_a_shell_with_read_t_ticks_and_no_command_runs_per_tick(
    tmp_path: Path,
) -> None:
    tools = _system_tools("dash", "awk", "cat", "date", "sleep", "kill", "bash", "busybox")
    if "dash" not in tools or not {"bash", "busybox"} & set(tools):
        pytest.skip("needs dash, and bash or busybox to tick with")
    log = tmp_path / "commands"
    log.touch()
    path = _logging_path(tmp_path / "bin", log, tools)
    argv = sampler_argv(0.1, "/", max_runtime=3)
    ticks, commands = _commands_at_10_hz(["dash", *argv[1:]], path, log)
    assert ticks >= 25
    assert "sleep" not in commands
    assert len(commands) <= 10, commands  # a command per tick would be 30 more


@pytest.mark.process
def test_dash_alone_falls_back_to_a_sleep_per_tick(tmp_path: Path) -> None:
    tools = _system_tools("dash", "awk", "cat", "date", "sleep", "kill")
    if len(tools) < 6:
        pytest.skip("needs dash and the usual tools")
    log = tmp_path / "commands"
    log.touch()
    path = _logging_path(tmp_path / "bin", log, tools)
    argv = sampler_argv(0.1, "/", max_runtime=3)
    ticks, commands = _commands_at_10_hz(["dash", *argv[1:]], path, log)
    assert ticks >= 20
    assert commands.count("sleep") >= ticks - 1
