"""Findings of a benchmark on one host: busy before the start (from the check's captured
outputs, tests/fixtures/before/, and from values at the thresholds), and a top clock
below the advertised one (from the board trees, tests/fixtures/boards/)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from wirespeed.analysis.bench_findings import judge_before_start, judge_clock
from wirespeed.analysis.findings import hint
from wirespeed.facts.advertised import read_compatible
from wirespeed.facts.cpus import read_clusters
from wirespeed.facts.model import Cluster
from wirespeed.facts.read import TreeSource
from wirespeed.model import FindingKind
from wirespeed.sampling.before import BeforeStart, BusyProcess, parse_before_start

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
BOARDS = FIXTURES / "boards"
# The device tree's compatible strings of the mainline DTS files of the two boards whose
# captured trees have none (rk3399-nanopi-r4s.dts, rk3328-nanopi-r2s.dts).
R4S_COMPATIBLE = ("friendlyarm,nanopi-r4s", "rockchip,rk3399")
R2S_COMPATIBLE = ("friendlyarm,nanopi-r2s", "rockchip,rk3328")


def _clusters(board: str) -> tuple[Cluster, ...]:
    clusters, _, _ = read_clusters(TreeSource(BOARDS / board))
    return clusters


def _quiet(**changes: object) -> BeforeStart:
    base = BeforeStart(
        load1=0.1,
        load5=0.1,
        load15=0.1,
        cpu_count=2,
        busy_pct=1.0,
        processes=(),
        window_s=0.5,
        script_pid=4242,
    )
    return dataclasses.replace(base, **changes)  # type: ignore[arg-type]


# ---------------------------------------------------------------- busy before the start


def test_the_captured_yes_hog_is_busy_before_start_naming_yes_and_its_pid() -> None:
    before = parse_before_start((FIXTURES / "before" / "yes-hog.txt").read_text())
    found = re.search(r"yes hog: pid (\d+)", (FIXTURES / "before" / "INDEX.txt").read_text())
    assert found is not None
    (finding,) = judge_before_start(before, "local")
    assert finding.kind is FindingKind.BUSY_BEFORE_START
    assert finding.message.startswith(f"local: {before.busy_pct:.0f} % of its 2 CPUs busy")
    assert f"yes (pid {found.group(1)}) " in finding.message


def test_the_captured_quiet_machine_says_nothing_though_its_load_was_high() -> None:
    before = parse_before_start((FIXTURES / "before" / "quiet.txt").read_text())
    # Captured as other work on this machine had just stopped: its minute is in the load.
    assert before.load1 > 0.5 * before.cpu_count and before.busy_pct < 1
    assert judge_before_start(before, "local") == []


def test_the_message_gives_the_share_the_load_and_the_busiest_first() -> None:
    before = _quiet(
        load1=2.1,
        load5=1.05,
        load15=0.4,
        busy_pct=56.0,
        processes=(
            BusyProcess(812, 1, "yes", 99.0),
            BusyProcess(77, 1, "dockerd", 12.4),
            BusyProcess(9, 2, "kworker/0:1", 2.0),
        ),
    )
    (finding,) = judge_before_start(before, "r4s")
    assert finding.message == (
        "r4s: 56 % of its 2 CPUs busy in the 0.5 s before the start (load 2.10 1.05 0.40); "
        "busiest: yes (pid 812) 99 % of a core, dockerd (pid 77) 12 %"
    )
    assert hint(FindingKind.BUSY_BEFORE_START)


def test_a_high_load_average_alone_is_the_last_minute_not_now() -> None:
    # The previous benchmark leaves the load average high for minutes after it ended.
    assert judge_before_start(_quiet(load1=3.9, load5=2.5, busy_pct=2.0), "r4s") == []


def test_under_a_tenth_of_the_machine_is_not_busy() -> None:
    one = (BusyProcess(500, 1, "dropbear", 18.0),)
    assert judge_before_start(_quiet(busy_pct=9.0, processes=one), "r4s") == []
    assert judge_before_start(_quiet(busy_pct=10.0, processes=one), "r4s") != []


def test_a_busy_machine_with_no_process_standing_out_says_so() -> None:
    many = tuple(BusyProcess(100 + i, 1, f"worker{i}", 5.0) for i in range(8))
    (finding,) = judge_before_start(_quiet(busy_pct=20.0, processes=many), "r4s")
    assert finding.message.endswith("; no one process stood out")


def test_wirespeeds_own_sampler_and_the_controller_are_neither_named_nor_counted() -> None:
    ours = (
        BusyProcess(700, 1, "python3", 30.0),  # the controller, in a lab on this machine
        BusyProcess(701, 700, "awk", 8.0),  # a sampler starting: its awk scans /proc
        BusyProcess(702, 700, "sh", 4.0),
    )
    # 25 % of the machine, (30 + 8 + 4) / 2 = 21 % of it ours.
    before = _quiet(busy_pct=25.0, processes=ours)
    assert judge_before_start(before, "dut", controller_pid=700) == []
    # Without saying which process is the controller, it is someone else's.
    (finding,) = judge_before_start(before, "dut")
    assert "busiest: python3 (pid 700) 30 % of a core" in finding.message
    assert "awk" not in finding.message


def test_a_shell_loop_holding_a_core_is_named_though_sh_is_a_name_wirespeed_uses() -> None:
    loop = (BusyProcess(900, 1, "sh", 99.0),)
    (finding,) = judge_before_start(_quiet(busy_pct=50.0, processes=loop), "r4s")
    assert "busiest: sh (pid 900) 99 % of a core" in finding.message


# ---------------------------------------------------------------- clock below advertised


def test_the_neo2_h5_at_816_mhz_is_below_its_1_5_ghz() -> None:
    source = TreeSource(BOARDS / "neo2")
    (finding,) = judge_clock(_clusters("neo2"), read_compatible(source), "neo2")
    assert finding.kind is FindingKind.CLOCK_BELOW_ADVERTISED
    assert finding.message == (
        "neo2: cpu0-3 (Cortex-A53) tops out at 816 MHz; the H5 is sold at 1.5 GHz (54 %)"
    )
    assert hint(FindingKind.CLOCK_BELOW_ADVERTISED)


def test_the_neo2_under_friendlyelecs_image_at_1008_mhz_is_below_too() -> None:
    (cluster,) = _clusters("neo2")
    faster = dataclasses.replace(cluster, max_khz=1_008_000)
    (finding,) = judge_clock([faster], read_compatible(TreeSource(BOARDS / "neo2")), "neo2")
    assert finding.message.endswith("tops out at 1008 MHz; the H5 is sold at 1.5 GHz (67 %)")


def test_the_captured_r4s_and_r2s_trees_have_no_compatible_and_say_nothing() -> None:
    for board in ("r4s", "r2s", "rk3588", "x86-virtio-vm"):
        compatible = read_compatible(TreeSource(BOARDS / board))
        assert compatible == ()
        assert judge_clock(_clusters(board), compatible, board) == []


def test_the_r4s_rk3399_runs_both_clusters_below_the_catalogue() -> None:
    messages = [f.message for f in judge_clock(_clusters("r4s"), R4S_COMPATIBLE, "r4s")]
    assert messages == [
        "r4s: cpu0-3 (Cortex-A53) tops out at 1416 MHz; the RK3399 is sold at 1.5 GHz (94 %)",
        "r4s: cpu4-5 (Cortex-A72) tops out at 1800 MHz; the RK3399 is sold at 2.0 GHz (90 %)",
    ]


def test_the_r2s_rk3328_at_its_mainline_top_is_below_1_5_ghz() -> None:
    (finding,) = judge_clock(_clusters("r2s"), R2S_COMPATIBLE, "r2s")
    assert finding.message.endswith("tops out at 1296 MHz; the RK3328 is sold at 1.5 GHz (86 %)")


def test_the_rk3588_at_its_advertised_clocks_says_nothing() -> None:
    assert judge_clock(_clusters("rk3588"), ("rockchip,rk3588",), "rk3588") == []


def test_a_clock_a_pll_step_short_is_within_the_tolerance() -> None:
    # OpenWrt's IPQ4019 tops out at 716.8 MHz; the chip is sold at 717.
    cluster = Cluster((0, 1, 2, 3), "Cortex-A7", "0xc07", 716_800, None, "policy0")
    assert judge_clock([cluster], ("qcom,ipq4019",), "ap") == []


def test_a_cluster_without_cpufreq_says_nothing() -> None:
    cluster = Cluster((0, 1), "MIPS 1004Kc", None, None, None, None)
    assert judge_clock([cluster], ("mediatek,mt7621-soc",), "router") == []


def test_the_boards_own_entry_decides_before_its_socs() -> None:
    cluster = Cluster((0, 1, 2, 3), "Cortex-A53", "0xd03", 1_400_000, None, "policy0")
    plus = ("raspberrypi,3-model-b-plus", "brcm,bcm2837")
    assert judge_clock([cluster], plus, "pi3") == []
    slower = dataclasses.replace(cluster, max_khz=1_200_000)
    (finding,) = judge_clock([slower], plus, "pi3")
    assert "the Raspberry Pi 3 Model B+ is sold at 1.4 GHz (86 %)" in finding.message


def test_an_override_stands_for_the_table() -> None:
    (cluster,) = _clusters("neo2")
    # What FriendlyELEC's own image reaches, as the user's reference.
    (finding,) = judge_clock([cluster], (), "neo2", advertised_override={None: 1_008_000})
    assert finding.message == (
        "neo2: cpu0-3 (Cortex-A53) tops out at 816 MHz; advertised: 1.008 GHz (81 %)"
    )
    assert judge_clock([cluster], (), "neo2", advertised_override={"Cortex-A72": 1}) == []
