"""The /proc parsers, read against real files: the R4S and R2S tables from the seeds,
and this machine's files captured two seconds apart."""

from __future__ import annotations

from sampling_fixtures import THIS_MACHINE, proc_text

from wirespeed.sampling import procfs
from wirespeed.sampling.series import cpu_share


def test_the_r4s_table_puts_eth0_on_irq_27_all_of_it_on_cpu0() -> None:
    table = procfs.parse_interrupts(proc_text("r4s-interrupts-before.txt"))
    assert table.cpus == (0, 1, 2, 3, 4, 5)
    eth0 = table.line("27")
    assert eth0 is not None
    assert (eth0.chip, eth0.hwirq, eth0.trigger, eth0.name) == ("GICv3", "44", "Level", "eth0")
    assert table.per_cpu(eth0) == {0: 10628015, 1: 0, 2: 0, 3: 0, 4: 0, 5: 0}


def test_the_r4s_pcie_nic_eth1_is_an_its_msi_edge_interrupt() -> None:
    eth1 = procfs.parse_interrupts(proc_text("r4s-interrupts-before.txt")).line("234")
    assert eth1 is not None
    assert (eth1.chip, eth1.hwirq, eth1.trigger, eth1.name) == ("ITS-MSI", "524288", "Edge", "eth1")
    assert eth1.counts[0] == 855861


def test_shared_irqs_ipis_and_the_err_line_of_the_r4s_table() -> None:
    table = procfs.parse_interrupts(proc_text("r4s-interrupts-before.txt"))
    vop = table.line("47")
    assert vop is not None and vop.actions == ("ff8f3f00.iommu", "ff8f0000.vop")
    pmu = table.line("18")
    assert pmu is not None and (pmu.chip, pmu.hwirq, pmu.name) == ("GICv3-23", "0", "arm-pmu")
    gpio = table.line("114")
    assert gpio is not None and (gpio.chip, gpio.name) == ("rockchip_gpio_irq", "K1")
    rescheduling = table.line("IPI0")
    assert rescheduling is not None and rescheduling.name == "Rescheduling interrupts"
    assert rescheduling.counts[5] == 748488
    err = table.line("Err")
    assert err is not None and err.counts == (0,)
    assert table.per_cpu(err) == {}  # one machine-wide count, not CPU0's


def test_the_r2s_usb_nic_interrupt_is_served_by_cpu2() -> None:
    table = procfs.parse_interrupts(proc_text("r2s-interrupts.txt"))
    usb = table.line("167")
    assert usb is not None and usb.name == "xhci-hcd:usb4" and usb.chip == "GICv2"
    assert table.per_cpu(usb) == {0: 0, 1: 0, 2: 81033, 3: 0}


def test_this_machines_interrupts_have_named_and_numbered_lines() -> None:
    table = procfs.parse_interrupts((THIS_MACHINE / "t0" / "interrupts").read_text())
    assert table.cpus == (0, 1)
    local_timer = table.line("LOC")
    assert local_timer is not None and local_timer.name == "Local timer interrupts"
    assert any(line.numbered and line.chip for line in table.lines)


def test_this_machines_cpus_were_partly_busy_between_the_two_captures() -> None:
    total0, cpus0 = procfs.parse_stat((THIS_MACHINE / "t0" / "stat").read_text())
    total1, cpus1 = procfs.parse_stat((THIS_MACHINE / "t1" / "stat").read_text())
    assert total0 is not None and total1 is not None and set(cpus0) == {0, 1}
    for cpu in (0, 1):
        share = cpu_share(cpus0[cpu], cpus1[cpu])
        assert share is not None and 0.0 <= share.busy <= 100.0
        parts = share.user + share.nice + share.system + share.irq + share.softirq + share.steal
        assert abs(parts - share.busy) < 1e-6


def test_softirqs_net_dev_softnet_meminfo_loadavg_of_this_machine() -> None:
    softirqs = procfs.parse_softirqs((THIS_MACHINE / "t0" / "softirqs").read_text())
    assert set(softirqs.per_cpu("NET_RX")) == {0, 1}
    interfaces = procfs.parse_net_dev((THIS_MACHINE / "t0" / "net_dev").read_text())
    assert "lo" in interfaces and interfaces["lo"].rx_bytes == interfaces["lo"].tx_bytes
    softnet = procfs.parse_softnet_stat((THIS_MACHINE / "t0" / "net_softnet_stat").read_text())
    assert [counters.cpu for counters in softnet] == [0, 1]  # column 13 on kernels >= 5.10
    memory = procfs.parse_meminfo((THIS_MACHINE / "t0" / "meminfo").read_text())
    assert memory["MemAvailable"] <= memory["MemTotal"] and memory["MemTotal"] % 1024 == 0
    load = procfs.parse_loadavg((THIS_MACHINE / "t0" / "loadavg").read_text())
    assert load is not None and all(value >= 0 for value in load)


def test_a_process_name_with_spaces_and_parentheses() -> None:
    pid, comm, utime, stime = procfs.parse_pid_stat(
        (THIS_MACHINE / "t0" / "pid_stat").read_text().replace("(cat)", "(a) (b c)")
    )
    assert comm == "a) (b c" and pid > 0 and utime >= 0 and stime >= 0
