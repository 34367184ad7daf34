"""The summary tells who was busy with what; stories from the seeds' R4S tables."""

from __future__ import annotations

import pytest
from sampling_fixtures import R4S_BOARD, THIS_MACHINE, proc_text, run_sampler

from wirespeed.sampling.model import DeviceInfo, SampleSet
from wirespeed.sampling.stream import parse_stream, snapshot_from_files
from wirespeed.sampling.summary import MonitorSummary, summarize


def _samples_of(
    files_before: dict[str, str], files_after: dict[str, str], seconds: float
) -> SampleSet:
    return SampleSet(
        host="r4s",
        interval=seconds,
        start_uptime=0.0,
        device_epoch=None,
        info=DeviceInfo(),
        snapshots=(
            snapshot_from_files(1, 0.0, files_before),
            snapshot_from_files(2, seconds, files_after),
        ),
    )


def test_after_pinning_eth0_interrupts_fire_on_cpu4_and_eth1_on_cpu5() -> None:
    # The seed's tables before and after `echo 10 > /proc/irq/27/smp_affinity` and a
    # 120 s iperf run: CPU0's counts were reset by the reboot, CPU4's grew.
    netdev = (R4S_BOARD / "proc" / "net" / "dev").read_text()
    samples = _samples_of(
        {"/proc/interrupts": proc_text("r4s-interrupts-before.txt"), "/proc/net/dev": netdev},
        {
            "/proc/interrupts": proc_text("r4s-interrupts-after-affinity.txt"),
            "/proc/net/dev": netdev,
        },
        120.0,
    )
    summary = summarize(samples)
    eth0 = summary.nic("eth0")
    eth1 = summary.nic("eth1")
    assert eth0 is not None and eth1 is not None
    assert [irq.irq for irq in eth0.irqs] == ["27"]
    assert eth0.irqs[0].chip == "GICv3"
    rates = dict(zip((0, 1, 2, 3, 4, 5), eth0.per_cpu_per_s, strict=True))
    assert rates[4] == 22505343 / 120.0 and rates[0] == 0.0  # a counter that fell counts 0
    assert max(range(6), key=lambda cpu: eth1.per_cpu_per_s[cpu]) == 5


def test_a_usb_nic_is_found_through_a_mapping_of_its_irqs() -> None:
    r2s = proc_text("r2s-interrupts.txt")
    netdev = (THIS_MACHINE / "t0" / "net_dev").read_text().replace("eth0:", "eth1:")
    samples = _samples_of(
        {"/proc/interrupts": r2s, "/proc/net/dev": netdev},
        {"/proc/interrupts": r2s, "/proc/net/dev": netdev},
        1.0,
    )
    summary = summarize(samples, nic_irqs={"eth1": ["167"]})
    eth1 = summary.nic("eth1")
    assert eth1 is not None and eth1.irqs[0].name == "xhci-hcd:usb4"


def test_this_machine_between_two_captures() -> None:
    def files(moment: str) -> dict[str, str]:
        directory = THIS_MACHINE / moment
        return {
            "/proc/stat": (directory / "stat").read_text(),
            "/proc/interrupts": (directory / "interrupts").read_text(),
            "/proc/softirqs": (directory / "softirqs").read_text(),
            "/proc/net/dev": (directory / "net_dev").read_text(),
            "/proc/net/softnet_stat": (directory / "net_softnet_stat").read_text(),
            "/proc/meminfo": (directory / "meminfo").read_text(),
            "/proc/loadavg": (directory / "loadavg").read_text(),
        }

    summary = summarize(_samples_of(files("t0"), files("t1"), 2.0))
    assert summary.cpus == (0, 1) and len(summary.cores) == 2
    # /proc/stat's ticks between t0 and t1: cpu0 203 (user 167, system 13, idle 17,
    # iowait 5, steal 1), cpu1 205 (user 193, system 11, softirq 1, never idle).
    assert [core.busy_pct for core in summary.cores] == [
        pytest.approx(100.0 * 181 / 203),
        pytest.approx(100.0),
    ]
    busiest = summary.busiest
    assert busiest is not None and (busiest.cpu, busiest.dominant) == (1, "user")
    assert busiest.dominant_pct == pytest.approx(100.0 * 193 / 205)
    # NET_RX stayed at 19383774 and 21956574 between the captures: no share to give.
    assert summary.net_rx_share_pct == (0.0, 0.0)
    assert summary.memory_available_min_bytes is not None
    assert all(interface.name != "lo" for interface in summary.interfaces)


@pytest.mark.process
def test_the_r4s_tree_summary_names_its_temperatures_clocks_and_kernel_events() -> None:
    stream = parse_stream(run_sampler(R4S_BOARD, seconds=0.5, interval=0.25))
    samples = SampleSet(
        host="r4s",
        interval=0.25,
        start_uptime=stream.start_uptime or 0.0,
        device_epoch=stream.device_epoch,
        info=stream.info,
        snapshots=stream.snapshots,
        kernel=stream.kernel,
    )
    summary = summarize(samples)
    assert summary.temperature_max_c == 52.777
    assert [(zone.type, zone.first_trip_c) for zone in summary.thermal] == [
        ("soc-thermal", 70.0),
        ("gpu-thermal", 70.0),
    ]
    clocks = {clock.policy: clock for clock in summary.clocks}
    assert clocks["policy0"].max_khz == 1416000 and clocks["policy0"].cpus == (0, 1, 2, 3)
    assert clocks["policy4"].hardware_max_khz == 1800000
    assert "Detected Tx Unit Hang" in summary.events[1].message
    assert summary.events[2].event == "adapter-reset"


@pytest.mark.process
def test_the_summary_survives_a_trip_through_json() -> None:
    stream = parse_stream(run_sampler(R4S_BOARD, seconds=0.5, interval=0.25))
    samples = SampleSet("r4s", 0.25, 0.0, None, stream.info, stream.snapshots, stream.kernel)
    summary = summarize(samples)
    assert MonitorSummary.from_json(summary.to_json()) == summary
