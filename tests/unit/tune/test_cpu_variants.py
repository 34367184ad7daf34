"""CPU variants (cores online, cpufreq governor, maximum frequency) on a copy of a
board tree (partly captured, partly derived: tests/fixtures/boards/README.md): journaled
before each write, restored byte for byte when the variant ends and after a crash, and
refused where the device cannot do them.

Never this machine: every read and write goes to a tree under tmp_path (TreeHost refuses
a path that leaves it).

The rk3588 capture has the CPU layout (three policies, `online` 0-7) and each policy's
real cpuinfo_max_freq, but not the files a CPU variant writes. `rk3588_tree` adds them as
an RK3588 kernel lays them out: `present` as `online`; `cpuN/online` for N >= 1 (arm64
has none for cpu0, the boot CPU); per policy `scaling_governor` (schedutil, the default
of arm64 defconfig), `scaling_available_governors` (the governors of the Rockchip CPUFreq
developer guide for Linux 4.19, in the kernel's order, with the kernel's trailing
space), `cpuinfo_min_freq` 408 MHz and `scaling_max_freq` at `cpuinfo_max_freq` (the
ROCK 5B figures the board README cites: 408-1800 and 408-2400 MHz), and for policy0
`scaling_available_frequencies`, the cluster's OPPs in mainline rk3588s.dtsi.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tune_helpers import TreeHost, copy_board, snapshot

from wirespeed.errors import UsageError
from wirespeed.plan import Variant, expand, parse_plan
from wirespeed.plan.plan import ALL_POLICIES
from wirespeed.process_owner import process_owner
from wirespeed.run.cpu_variants import cpu_changes_for
from wirespeed.run.preflight import preflight
from wirespeed.run.variants import VariantStates
from wirespeed.tune import Journal, RefusedError, State, apply_changes, parse_target, recover
from wirespeed.tune.targets import check_value

CPU = "sys/devices/system/cpu"
GOVERNORS = "conservative ondemand userspace powersave performance schedutil \n"
POLICY0_STEPS = "408000 600000 816000 1008000 1200000 1416000 1608000 1800000 \n"


@pytest.fixture
def rk3588_tree(tmp_path: Path) -> Path:
    tree = copy_board("rk3588", tmp_path)
    cpu = tree / CPU
    (cpu / "present").write_text((cpu / "online").read_text())
    for number in range(1, 8):
        (cpu / f"cpu{number}" / "online").write_text("1\n")
    for first in (0, 4, 6):
        policy = cpu / "cpufreq" / f"policy{first}"
        (policy / "scaling_governor").write_text("schedutil\n")
        (policy / "scaling_available_governors").write_text(GOVERNORS)
        (policy / "cpuinfo_min_freq").write_text("408000\n")
        (policy / "scaling_max_freq").write_text((policy / "cpuinfo_max_freq").read_text())
    (cpu / "cpufreq/policy0/scaling_available_frequencies").write_text(POLICY0_STEPS)
    return tree


@pytest.fixture
def journal(tmp_path: Path) -> Iterator[Journal]:
    with Journal.open(tmp_path / "store.db") as opened:
        yield opened


def read(tree: Path, path: str) -> str:
    return (tree / CPU / path).read_text()


TWO_CORES = Variant("two-cores", cpus_online=(0, 4))
PERFORMANCE = Variant("performance", governor="performance", max_freq=((ALL_POLICIES, 1_800_000),))


def test_a_cpu_variant_is_applied_for_its_trials_and_every_byte_comes_back(
    rk3588_tree: Path, journal: Journal
) -> None:
    before = snapshot(rk3588_tree)
    device = TreeHost(rk3588_tree, name="root@rk3588")
    with VariantStates(journal, {}, [device]) as states:
        assert states.enter(TWO_CORES) is None
        assert [read(rk3588_tree, f"cpu{n}/online") for n in range(1, 8)] == [
            "0\n", "0\n", "0\n", "1\n", "0\n", "0\n", "0\n"
        ]  # fmt: skip
        assert {e.host for e in journal.open_entries()} == {"root@rk3588"}

        assert states.enter(PERFORMANCE) is None  # the previous variant is undone first
        assert [read(rk3588_tree, f"cpu{n}/online") for n in range(1, 8)] == ["1\n"] * 7
        for first in (0, 4, 6):
            assert read(rk3588_tree, f"cpufreq/policy{first}/scaling_governor") == "performance\n"
            assert read(rk3588_tree, f"cpufreq/policy{first}/scaling_max_freq") == "1800000\n"
        # Every previous value is journaled as read, newline included; policy0 already
        # runs at most at 1.8 GHz, so its scaling_max_freq is not touched.
        previous = {"/".join(e.target.split("/")[-2:]): e.previous for e in journal.open_entries()}
        assert previous == {
            "policy0/scaling_governor": "schedutil\n",
            "policy4/scaling_governor": "schedutil\n",
            "policy4/scaling_max_freq": "2400000\n",
            "policy6/scaling_governor": "schedutil\n",
            "policy6/scaling_max_freq": "2400000\n",
        }
    assert snapshot(rk3588_tree) == before
    assert journal.open_entries() == []


def test_cpus_come_online_before_the_cpufreq_knobs_and_go_offline_after(
    rk3588_tree: Path,
) -> None:
    (rk3588_tree / CPU / "cpu6/online").write_text("0\n")
    variant = Variant("big", cpus_online=(0, 6, 7), governor="performance")
    subjects = [c.subject for c in cpu_changes_for(variant, TreeHost(rk3588_tree))]
    # policy4's CPUs all go offline: its governor is left alone.
    assert subjects == [
        "cpu6 online",
        "policy0 governor",
        "policy6 governor",
        "cpu1 offline",
        "cpu2 offline",
        "cpu3 offline",
        "cpu4 offline",
        "cpu5 offline",
    ]


def dead_owner() -> str:
    return process_owner().rsplit("/", 1)[0] + "/0"  # this process, another start: gone


def test_after_a_crash_the_next_start_puts_the_cores_and_frequencies_back(
    rk3588_tree: Path, tmp_path: Path
) -> None:
    before = snapshot(rk3588_tree)
    db = tmp_path / "crash.db"
    device = TreeHost(rk3588_tree, name="root@rk3588")
    variant = Variant("slow", cpus_online=(0, 1, 4), max_freq=((0, 1_008_000), (4, 1_200_000)))
    with Journal.open(db, owner=dead_owner()) as crashed:
        apply_changes(device, cpu_changes_for(variant, device), crashed)
    # The process "died" in the variant: no restore ran.
    assert read(rk3588_tree, "cpu2/online") == "0\n"
    assert read(rk3588_tree, "cpufreq/policy0/scaling_max_freq") == "1008000\n"

    with Journal.open(db) as journal:
        assert {e.state for e in journal.open_entries(host="root@rk3588")} == {State.APPLIED}
        recovery = recover(journal, lambda _name: TreeHost(rk3588_tree, name="root@rk3588"))
        assert recovery.clean
        assert journal.open_entries() == []
    assert snapshot(rk3588_tree) == before


@pytest.mark.parametrize(
    ("variant", "message"),
    [
        (Variant("x", cpus_online=(0, 9)), "cpu9 is not there"),
        (Variant("x", governor="interactive"), "policy0 has no governor 'interactive'"),
        (Variant("x", max_freq=((ALL_POLICIES, 3_000_000),)), "3 GHz is outside policy0's range"),
        (Variant("x", max_freq=((0, 300_000),)), "300 MHz is outside policy0's range"),
        (Variant("x", max_freq=((0, 1_100_000),)), "policy0 cannot run at 1.1 GHz"),
        (Variant("x", max_freq=((2, 1_200_000),)), "no cpufreq policy2"),
        (
            Variant("x", cpus_online=(0,), max_freq=((4, 1_200_000),)),
            "every CPU of policy4 is offline",
        ),
    ],
)
def test_what_the_device_cannot_do_is_refused_before_anything_is_written(
    rk3588_tree: Path, variant: Variant, message: str
) -> None:
    with pytest.raises(UsageError, match=message) as caught:
        cpu_changes_for(variant, TreeHost(rk3588_tree))
    assert caught.value.hint


def test_a_cpu_without_an_online_file_is_not_taken_offline(rk3588_tree: Path) -> None:
    (rk3588_tree / CPU / "cpu3/online").unlink()
    host = TreeHost(rk3588_tree)
    with pytest.raises(UsageError, match=r"cpu3 cannot go offline: .*cpu3/online is absent"):
        cpu_changes_for(Variant("x", cpus_online=(0, 1, 2)), host)
    # Kept online, it needs no file.
    assert [c.subject for c in cpu_changes_for(Variant("x", cpus_online=(0, 3)), host)] == [
        "cpu1 offline", "cpu2 offline", "cpu4 offline", "cpu5 offline", "cpu6 offline",
        "cpu7 offline",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("board", "message"),
    [
        ("x86-virtio-vm", "no cpufreq"),  # a VM: no cpufreq at all
        ("r4s", "policy0 has no scaling_governor"),  # captured without the governor files
    ],
)
def test_a_device_without_the_cpufreq_files_is_refused(
    tmp_path: Path, board: str, message: str
) -> None:
    host = TreeHost(copy_board(board, tmp_path))
    with pytest.raises(UsageError, match=message):
        cpu_changes_for(Variant("x", governor="performance"), host)


def test_cpu0_is_never_a_target_and_values_are_checked() -> None:
    with pytest.raises(RefusedError, match="cpu0 is never taken offline"):
        parse_target("/sys/devices/system/cpu/cpu0/online")
    online = parse_target("/sys/devices/system/cpu/cpu1/online")
    governor = parse_target("/sys/devices/system/cpu/cpufreq/policy4/scaling_governor")
    freq = parse_target("/sys/devices/system/cpu/cpufreq/policy4/scaling_max_freq")
    assert check_value(online, "0\n") == "0\n"
    for target, bad in [(online, "2"), (governor, "$(reboot)"), (freq, "1.2GHz"), (freq, "0")]:
        with pytest.raises(RefusedError):
            check_value(target, bad)
    for escape in (
        "/sys/devices/system/cpu/cpu1/../../../../etc/x",
        "/sys/devices/system/cpu/online",
    ):
        with pytest.raises(RefusedError):
            parse_target(escape)


LAB_PLAN = """
lab: {link: fe}
paths: [{name: WAN, topology: endpoint}]
tests: [{id: 1}]
variants:
  - {name: default}
  - {name: one-core, cpus_online: [0]}
"""

HOSTS_PLAN = """
hosts:
  pc: {address: 192.168.2.10}
  pluto: {address: 192.168.2.1%s}
paths: [{name: WAN, topology: endpoint, client: pc, server: pluto}]
tests: [{id: 1}]
variants:
  - {name: default}
  - {name: two-cores, cpus_online: [0, 1]}
"""


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (LAB_PLAN, "runs in the lab, whose DUT shares this machine's CPUs"),
        (HOSTS_PLAN % "", "its DUT 'pluto' is this machine"),
    ],
)
def test_a_cpu_variant_on_this_machines_cpus_is_refused_at_preflight(
    text: str, message: str
) -> None:
    plan = parse_plan(text)
    with pytest.raises(UsageError, match=message) as caught:
        preflight(plan, expand(plan))
    assert caught.value.exit_status == 2


def test_a_cpu_variant_on_a_dut_over_ssh_passes_preflight() -> None:
    plan = parse_plan(HOSTS_PLAN % ", ssh: root@192.168.2.1")
    preflight(plan, expand(plan))  # the device itself is checked once logged in


def test_a_run_checks_its_dut_once_logged_in_and_journals_it_by_its_ssh_name(
    rk3588_tree: Path, tmp_path: Path
) -> None:
    from wirespeed.run.runner import Runner
    from wirespeed.store import Store

    plan = parse_plan(
        HOSTS_PLAN % ", ssh: root@192.168.2.1" + "  - {name: fast, governor: performance}\n"
    )
    with Store.open(tmp_path / "s.db") as store:
        runner = Runner(plan, store)
        runner.hosts.ssh_hosts["pluto"] = TreeHost(rk3588_tree, name="pluto")  # type: ignore[assignment]
        (device,) = runner.hosts.cpu_devices(expand(plan))
        assert device.name == "root@192.168.2.1"  # what recovery logs in to again
        (rk3588_tree / CPU / "cpufreq/policy0/scaling_available_governors").write_text(
            "powersave schedutil \n"
        )
        with pytest.raises(UsageError, match="policy0 has no governor 'performance'") as caught:
            runner.hosts.cpu_devices(expand(plan))
        assert caught.value.hint == "its kernel offers powersave, schedutil"
