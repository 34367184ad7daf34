"""A board's /sys/devices/system/cpu as a directory a device can be shown instead of its
own (the foreign bench's router bind-mounts it there), for CPU variants over SSH.

    tree = board_cpu_tree("r4s", tmp_path / "cpu")

Built from the board trees of tests/fixtures/boards, never typed here: the R4S's CPU
layout (`online` 0-5, policy0 = cpu0-3, policy4 = cpu4-5, their cpuinfo_max_freq and
the cpuN/cpufreq links: tests/fixtures/boards/README.md says which are captured and which
derived) and the scaling files of r4s-sampling (scaling_{min,max,cur}_freq,
cpuinfo_min_freq). What a CPU variant writes and no capture holds is added as the unit
tests' rk3588 tree adds it (tests/unit/tune/test_cpu_variants.py), as an arm64 kernel
lays it out:
- `present` as `online`; `cpuN/online` "1" for N >= 1 (arm64 has none for cpu0);
- per policy `scaling_governor` schedutil (arm64 defconfig's default) and
  `scaling_available_governors` in the kernel's order with its trailing space;
- per policy `scaling_available_frequencies`: the OPPs of mainline rk3399-opp.dtsi,
  408-1416 MHz for the A53 cluster and 408-1800 MHz for the A72 cluster, which end at
  the two cpuinfo_max_freq of the capture.
"""

from __future__ import annotations

import shutil
from pathlib import Path

BOARDS = Path(__file__).resolve().parents[1] / "fixtures" / "boards"
CPU = Path("sys/devices/system/cpu")
GOVERNORS = "conservative ondemand userspace powersave performance schedutil \n"
# mainline arch/arm64/boot/dts/rockchip/rk3399-opp.dtsi, cluster0 and cluster1 (kHz).
_RK3399_OPPS = {
    0: (408000, 600000, 816000, 1008000, 1200000, 1416000),
    4: (408000, 600000, 816000, 1008000, 1200000, 1416000, 1608000, 1800000),
}
_DERIVED = {"r4s": _RK3399_OPPS}


def board_cpu_tree(board: str, into: Path) -> Path:
    """The board's CPU directory at `into`, with every file a CPU variant reads or
    writes; the files are plain and writable, as the kernel's are to root."""
    shutil.copytree(BOARDS / board / CPU, into, symlinks=True)
    sampled = BOARDS / f"{board}-sampling" / CPU / "cpufreq"
    if sampled.is_dir():
        for policy in sampled.iterdir():
            for file in policy.iterdir():
                target = into / "cpufreq" / policy.name / file.name
                if not target.exists():
                    shutil.copy(file, target)
    online = (into / "online").read_text()
    (into / "present").write_text(online)
    low, _, high = online.strip().partition("-")
    for number in range(int(low) + 1, int(high or low) + 1):
        (into / f"cpu{number}").mkdir(exist_ok=True)
        (into / f"cpu{number}" / "online").write_text("1\n")
    for first, steps in _DERIVED[board].items():
        base = into / "cpufreq" / f"policy{first}"
        (base / "scaling_governor").write_text("schedutil\n")
        (base / "scaling_available_governors").write_text(GOVERNORS)
        (base / "scaling_available_frequencies").write_text(
            " ".join(str(step) for step in steps) + " \n"
        )
        if not (base / "scaling_max_freq").exists():
            shutil.copy(base / "cpuinfo_max_freq", base / "scaling_max_freq")
    return into
