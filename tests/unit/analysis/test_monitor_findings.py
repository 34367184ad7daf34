"""Findings from what the device did: the R4S story (all NIC interrupts on the slow CPU0),
a throttled clock, a docker daemon eating a core, a NIC hang in the kernel log."""

from __future__ import annotations

import dataclasses

from wirespeed.analysis.findings import judge_monitor
from wirespeed.model import Finding, FindingKind, Flow, Proto, TestSpec
from wirespeed.run.traffic_outcome import without_moot
from wirespeed.sampling.summary import (
    BusiestCore,
    ClockRange,
    CoreLoad,
    InterfaceTraffic,
    IrqOnCore,
    IrqRate,
    KernelEvent,
    MonitorSummary,
    NicInterrupts,
    ProcessLoad,
    ZoneTemperature,
)


def core(cpu: int, busy: float, softirq: float = 0.0, peak: float | None = None) -> CoreLoad:
    return CoreLoad(
        cpu=cpu,
        busy_pct=busy,
        user_pct=busy - softirq,
        nice_pct=0.0,
        system_pct=0.0,
        irq_pct=0.0,
        softirq_pct=softirq,
        iowait_pct=0.0,
        steal_pct=0.0,
        peak_busy_pct=busy if peak is None else peak,
        interrupts_per_s=0.0,
        net_rx_per_s=0.0,
    )


# The R4S as the seed found it: CPU0 (an A53) drowning in eth0's softirqs, A72s idle.
R4S = MonitorSummary(
    host="r4s",
    duration_s=120.0,
    ticks=121,
    interval_s=1.0,
    partial=False,
    reason=None,
    cpus=(0, 1, 2, 3, 4, 5),
    cores=(core(0, 98.0, 91.0), *(core(c, 6.0) for c in range(1, 6))),
    busiest=BusiestCore(0, 98.0, "softirq", 91.0, (IrqOnCore("27", "eth0", 88000.0),)),
    net_rx_share_pct=(100.0, 0.0, 0.0, 0.0, 0.0, 0.0),
    net_tx_share_pct=(100.0, 0.0, 0.0, 0.0, 0.0, 0.0),
    nics=(
        NicInterrupts(
            "eth0",
            (IrqRate("27", "eth0", "GICv3", (88000.0, 0, 0, 0, 0, 0), 88000.0),),
            (88000.0, 0.0, 0.0, 0.0, 0.0, 0.0),
        ),
    ),
    interfaces=(),
    softnet=(),
    temperature_max_c=58.0,
    thermal=(),
    clocks=(),
    sensors=(),
    memory_available_min_bytes=None,
    load_max=None,
    processes=(),
    events=(),
)


def kinds(findings: list[Finding]) -> set[FindingKind]:
    return {f.kind for f in findings}


def test_the_r4s_cpu0_is_cpu_bound_by_eth0_while_the_fast_cores_idle() -> None:
    findings = judge_monitor(R4S)
    (cpu_bound,) = [f for f in findings if f.kind is FindingKind.CPU_BOUND]
    assert "cpu0 98 % busy" in cpu_bound.message
    assert "softirq" in cpu_bound.message
    assert "IRQ 27 eth0" in cpu_bound.message
    assert "the other cores idle" in cpu_bound.message
    (on_one,) = [f for f in findings if f.kind is FindingKind.IRQS_ON_ONE_CORE]
    assert "eth0: 100% of its 88000 interrupts/s on cpu0" in on_one.message


def test_a_core_busy_only_in_one_burst_is_not_cpu_bound() -> None:
    bursty = dataclasses.replace(
        R4S,
        cores=(core(0, 40.0, 30.0, peak=99.0), *(core(c, 6.0) for c in range(1, 6))),
        busiest=BusiestCore(0, 40.0, "softirq", 30.0, ()),
    )
    assert FindingKind.CPU_BOUND not in kinds(judge_monitor(bursty))


def test_a_clock_below_its_maximum_or_a_hot_zone_is_throttling() -> None:
    hot = dataclasses.replace(
        R4S,
        cores=(*(core(c, 6.0) for c in range(4)), core(4, 97.0), core(5, 60.0)),
        clocks=(ClockRange("policy4", (4, 5), 1008000, 1800000, 1800000),),
        thermal=(ZoneTemperature("thermal_zone0", "soc-thermal", 71.0, 70.0),),
    )
    messages = [f.message for f in judge_monitor(hot) if f.kind is FindingKind.THROTTLED]
    assert any("as low as 1008 MHz of 1800 MHz" in m for m in messages)
    assert any("71 °C reached its trip point 70 °C" in m for m in messages)


def test_an_idle_cluster_at_a_low_clock_is_not_throttled() -> None:
    # A benchmark pinned to the A72s: the A53s idle at their lowest clock, by choice of
    # the governor.
    pinned = dataclasses.replace(
        R4S,
        cores=(*(core(c, 3.0) for c in range(4)), core(4, 99.0), core(5, 99.0)),
        clocks=(
            ClockRange("policy0", (0, 1, 2, 3), 408000, 1416000, 1416000),
            ClockRange("policy4", (4, 5), 1800000, 1800000, 1800000),
        ),
    )
    assert FindingKind.THROTTLED not in kinds(judge_monitor(pinned))


def test_a_docker_daemon_is_background_load_but_iperf_and_ksoftirqd_are_not() -> None:
    busy = dataclasses.replace(
        R4S,
        processes=(
            ProcessLoad(812, "dockerd", 31.0),
            ProcessLoad(901, "iperf", 60.0),
            ProcessLoad(9, "ksoftirqd/0", 40.0),
        ),
    )
    (load,) = [f for f in judge_monitor(busy) if f.kind is FindingKind.BACKGROUND_LOAD]
    assert "dockerd (pid 812) used 31 % of a core" in load.message


def test_a_benchmarks_own_program_is_its_workload_not_background_load() -> None:
    # openssl speed keeps a core busy by design: neither CPU-bound nor background load;
    # a cron job beside it still is.
    benchmark = dataclasses.replace(
        R4S,
        processes=(ProcessLoad(700, "openssl", 99.0), ProcessLoad(812, "dockerd", 31.0)),
    )
    found = judge_monitor(benchmark, workload=("openssl",))
    assert FindingKind.CPU_BOUND not in kinds(found)
    (load,) = [f for f in found if f.kind is FindingKind.BACKGROUND_LOAD]
    assert "dockerd (pid 812)" in load.message
    # The same samples of a traffic test: the busy core is a finding, openssl is load.
    traffic = judge_monitor(benchmark)
    assert FindingKind.CPU_BOUND in kinds(traffic)
    assert any("openssl (pid 700)" in f.message for f in traffic)


def test_a_benchmark_of_programs_it_cannot_name_names_none() -> None:
    unixbench = dataclasses.replace(
        R4S, processes=(ProcessLoad(700, "dhry2reg", 99.0), ProcessLoad(701, "looper", 40.0))
    )
    found = judge_monitor(unixbench, workload=())
    assert not {FindingKind.BACKGROUND_LOAD, FindingKind.CPU_BOUND} & kinds(found)


def test_drops_and_a_tx_hang_in_the_kernel_log_are_findings() -> None:
    troubled = dataclasses.replace(
        R4S,
        interfaces=(InterfaceTraffic("eth1", 10, 10, 1, 1, 0, 0, 42, 0, 0.0, 0.0),),
        events=(KernelEvent(3.2, "tx-hang", 3, "igb 0000:01:00.0: Detected Tx Unit Hang"),),
    )
    findings = judge_monitor(troubled)
    assert any(f.kind is FindingKind.DROPS and "42 rx dropped" in f.message for f in findings)
    assert any(
        f.kind is FindingKind.KERNEL_EVENT and "Detected Tx Unit Hang" in f.message
        for f in findings
    )


def test_a_fault_line_another_lab_injected_into_the_shared_kernel_log_is_no_finding() -> None:
    # A lab's namespaces share this machine's kernel log with a soak's lab next door.
    shared = dataclasses.replace(
        R4S,
        events=(
            KernelEvent(1.0, "tx-hang", 4, "wirespeed-lab[soak-7]: igb 0000:01:00.0 wan: "
                        "Detected Tx Unit Hang"),
        ),
    )  # fmt: skip
    assert FindingKind.KERNEL_EVENT not in kinds(judge_monitor(shared))


def test_partial_samples_are_said() -> None:
    cut = dataclasses.replace(R4S, partial=True, reason="the sampler ended before it was stopped")
    assert FindingKind.PARTIAL_SAMPLES in kinds(judge_monitor(cut))


def test_a_busy_core_did_not_limit_a_trial_at_line_rate() -> None:
    spec = TestSpec(protocol=Proto.TCP)
    at_line_rate = [
        Finding(FindingKind.LINE_RATE, "941.2 Mbit/s is 100.0% of the ceiling", Flow.UP),
        Finding(FindingKind.CPU_BOUND, "cpu1 99 % busy"),
    ]
    assert kinds(without_moot(at_line_rate, spec)) == {FindingKind.LINE_RATE}
    below = [Finding(FindingKind.CPU_BOUND, "cpu1 99 % busy")]
    assert without_moot(below, spec) == below
