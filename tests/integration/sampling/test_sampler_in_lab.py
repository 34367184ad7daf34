"""The sampler on the lab's DUT while iperf3 crosses it, and when its host vanishes."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable

import pytest

from wirespeed.hosts.sockets import listening
from wirespeed.lab.lab import Lab
from wirespeed.model import Proto, Role
from wirespeed.sampling.series import core_series
from wirespeed.sampling.session import Sampler
from wirespeed.sampling.summary import summarize

MakeLab = Callable[..., Lab]
PORT = 5231


def _namespace_pids(namespace: str) -> list[int]:
    listing = subprocess.run(
        ["ip", "netns", "pids", namespace], capture_output=True, text=True, check=True
    )
    return [int(pid) for pid in listing.stdout.split()]


def _iperf3_through(lab: Lab, seconds: float) -> None:
    server_host = lab.hosts[Role.SERVER]
    server = server_host.start(["iperf3", "-s", "-1", "-p", str(PORT)])
    try:
        deadline = time.monotonic() + 5
        while not listening(server_host, server.pid, PORT, Proto.TCP):
            assert server.poll() is None, server.stderr()
            assert time.monotonic() < deadline, "iperf3 server did not listen"
            time.sleep(0.005)
        argv = ["iperf3", "-c", lab.server_address, "-p", str(PORT), "-t", str(seconds)]
        completed = lab.hosts[Role.CLIENT].run(argv, timeout=seconds + 20)
        assert completed.returncode == 0, completed.stderr
    finally:
        server.stop()


@pytest.mark.root
@pytest.mark.slow
def test_the_dut_forwarding_iperf3_shows_net_rx_work_and_per_core_series(
    make_lab: MakeLab,
) -> None:
    lab = make_lab("router")
    dut = lab.hosts[Role.DUT]
    running = Sampler.start(dut, interval=0.2, max_runtime=60)
    assert running.wait_for_ticks(2), running.process.stderr()
    _iperf3_through(lab, 2)
    samples = running.stop()

    assert not samples.partial, samples.reason
    assert len(samples.snapshots) >= 10
    series = core_series(samples.snapshots)
    assert len(series) == os.cpu_count()
    assert all(len(core.busy) >= 9 for core in series)

    summary = summarize(samples)
    assert sum(core.net_rx_per_s for core in summary.cores) > 0
    assert max(summary.net_rx_share_pct) > 0
    interfaces = {interface.name: interface for interface in summary.interfaces}
    # The DUT's own /proc/net/dev: it received the upload on lan and sent it out of wan.
    assert set(interfaces) >= {"lan", "wan"}
    assert interfaces["lan"].rx_bytes > 1_000_000
    assert interfaces["wan"].tx_bytes > 1_000_000

    assert not os.path.exists(f"/proc/{running.pid}")
    assert _namespace_pids(lab.namespaces[Role.DUT]) == []  # no awk, sleep or cat left


@pytest.mark.root
def test_a_sampler_whose_processes_are_killed_gives_a_partial_sample_set(
    make_lab: MakeLab,
) -> None:
    lab = make_lab("router")
    namespace = lab.namespaces[Role.DUT]
    running = Sampler.start(lab.hosts[Role.DUT], interval=0.1, max_runtime=60)
    assert running.wait_for_ticks(3)
    # What tearing the lab down does: every process in the namespace is killed.
    for pid in _namespace_pids(namespace):
        os.kill(pid, signal.SIGKILL)
    started = time.monotonic()
    while running.alive and time.monotonic() - started < 5:
        time.sleep(0.01)

    samples = running.stop()
    assert time.monotonic() - started < 5
    assert samples.partial
    assert samples.reason is not None and "before it was stopped" in samples.reason
    assert len(samples.snapshots) >= 3
    assert _namespace_pids(namespace) == []


@pytest.mark.root
def test_a_sampler_whose_controller_forgot_it_exits_by_its_max_runtime(
    make_lab: MakeLab,
) -> None:
    lab = make_lab("router")
    running = Sampler.start(lab.hosts[Role.DUT], interval=0.2, max_runtime=1)
    running.process.wait(5)
    samples = running.stop()
    assert samples.partial and samples.reason is not None and "max runtime" in samples.reason
    time.sleep(0.3)  # the feed notices at its next tick
    assert _namespace_pids(lab.namespaces[Role.DUT]) == []


@pytest.mark.root
def test_a_kernel_log_line_written_during_the_trial_is_reported_as_an_event(
    make_lab: MakeLab,
) -> None:
    lab = make_lab("router")
    running = Sampler.start(lab.hosts[Role.DUT], interval=0.1, max_runtime=60)
    assert running.wait_for_ticks(1)
    with open("/dev/kmsg", "w") as kmsg:
        kmsg.write("wirespeed test: igb 0000:01:00.0: Detected Tx Unit Hang\n")
    assert running.wait_for_ticks(4)
    samples = running.stop()
    events = [line for line in samples.kernel if "wirespeed test" in line.message]
    assert [line.event for line in events] == ["tx-hang"]
    # The kernel stamps records with its scheduler clock, a few ms behind /proc/uptime.
    assert -2 < events[0].t < samples.snapshots[-1].t + 1
