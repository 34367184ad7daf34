"""The clock a SoC is sold at, per core type, by its device tree `compatible` strings.

A board's kernel may never reach the clock its SoC is sold at: the NanoPi NEO2's H5 is
sold at 1.5 GHz and runs at 816 MHz under Armbian, 1008 MHz under FriendlyELEC's own
image; the RK3399, sold as Cortex-A72 2.0 GHz + Cortex-A53 1.5 GHz, runs 1.8 + 1.4 GHz
(seed 002, a NanoPi R4S and NEO2 benchmark write-up): the device tree's operating points
stop short, or the board lacks the voltage regulator the top ones need. A benchmark then
measures that setup, not the chip; comparing boards by their SoC's name says nothing
until the clocks are known.

`compatible` (/proc/device-tree/compatible) lists NUL-terminated strings from the most
specific (the board) to the least (the SoC): the first one found in the table decides, so
a board sold at another clock than its SoC's may have its own entry.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from wirespeed.facts.read import FactSource

COMPATIBLE_PATHS = ("/proc/device-tree/compatible", "/sys/firmware/devicetree/base/compatible")

ANY_CORE = None  # a clock for whichever cores the SoC has (cpuinfo may not name them)


@dataclass(frozen=True)
class Advertised:
    name: str  # as it is sold: "H5", "RK3399", "Raspberry Pi 3 Model B+"
    clocks: Mapping[str | None, int] = field(default_factory=dict)  # core type -> kHz


# Each figure is the maker's own where it publishes one; the comment says where it is
# from. Where one compatible string covers several speed grades, the lowest is kept, so
# that a board of the slower grade is not told it is below its clock.
ADVERTISED: dict[str, Advertised] = {
    # Seed 002: FriendlyELEC sells the NanoPi NEO2's H5 as "Cortex-A53 1.5 GHz Quad-core".
    "allwinner,sun50i-h5": Advertised("H5", {"Cortex-A53": 1_500_000}),
    # linux-sunxi.org/H3: "rated to run at 1.296GHz, anything higher is overclocking";
    # board makers print 1.2 to 1.6 GHz for the same chip.
    "allwinner,sun8i-h3": Advertised("H3", {"Cortex-A7": 1_296_000}),
    # Seed 002: "the maker's catalogue: Cortex-A72 2.0 GHz + Cortex-A53 1.5 GHz"; so does
    # FriendlyELEC's NanoPi R4S page (A72 up to 2.0 GHz, A53 up to 1.5 GHz).
    "rockchip,rk3399": Advertised("RK3399", {"Cortex-A72": 2_000_000, "Cortex-A53": 1_500_000}),
    # Rockchip's RK3328: quad-core Cortex-A53 up to 1.5 GHz (the NanoPi R2S, ROCK64);
    # mainline's highest operating point is 1296 MHz.
    "rockchip,rk3328": Advertised("RK3328", {"Cortex-A53": 1_500_000}),
    # Rockchip's RK3566 / RK3568: quad-core Cortex-A55 up to 1.8 / 2.0 GHz.
    "rockchip,rk3566": Advertised("RK3566", {"Cortex-A55": 1_800_000}),
    "rockchip,rk3568": Advertised("RK3568", {"Cortex-A55": 2_000_000}),
    # Rockchip's RK3588(S): 4 x Cortex-A76 up to 2.4 GHz + 4 x Cortex-A55 up to 1.8 GHz.
    "rockchip,rk3588": Advertised("RK3588", {"Cortex-A76": 2_400_000, "Cortex-A55": 1_800_000}),
    "rockchip,rk3588s": Advertised("RK3588S", {"Cortex-A76": 2_400_000, "Cortex-A55": 1_800_000}),
    # Seed 002: the Amlogic S905 (meson-gxbb) was sold at 2.0 GHz and runs at 1.5 at most.
    "amlogic,meson-gxbb": Advertised("S905", {"Cortex-A53": 2_000_000}),
    # Raspberry Pi product briefs. The Pi 4's BCM2711 is sold at 1.5 GHz (stepping B0)
    # and at 1.8 GHz (C0, boards from 2021): compatible does not tell them apart, so 1.5.
    "brcm,bcm2711": Advertised("BCM2711", {"Cortex-A72": 1_500_000}),
    "brcm,bcm2712": Advertised("BCM2712", {"Cortex-A76": 2_400_000}),
    # The Pi 3 Model B+ runs its BCM2837B0 at 1.4 GHz, the Model B at 1.2 GHz: the
    # board's own string comes first in compatible, so it decides.
    "raspberrypi,3-model-b-plus": Advertised("Raspberry Pi 3 Model B+", {"Cortex-A53": 1_400_000}),
    "brcm,bcm2837": Advertised("BCM2837", {"Cortex-A53": 1_200_000}),
    # MediaTek's MT7621A brief: dual-core MIPS 1004Kc at 880 MHz. Its cpuinfo names no
    # ARM part (and most of its kernels have no cpufreq, so there is nothing to compare).
    "mediatek,mt7621-soc": Advertised("MT7621", {ANY_CORE: 880_000}),
    # Qualcomm's IPQ4018/IPQ4019 briefs: quad-core Cortex-A7 at 717 MHz.
    "qcom,ipq4018": Advertised("IPQ4018", {"Cortex-A7": 717_000}),
    "qcom,ipq4019": Advertised("IPQ4019", {"Cortex-A7": 717_000}),
}


def parse_compatible(text: str | None) -> tuple[str, ...]:
    """The file's NUL-separated strings, most specific first; () for none."""
    if not text:
        return ()
    return tuple(part.strip() for part in text.split("\0") if part.strip())


def read_compatible(source: FactSource) -> tuple[str, ...]:
    """A machine's compatible strings; () where it has no device tree (x86, a VM)."""
    for path in COMPATIBLE_PATHS:
        found = parse_compatible(source.read(path))
        if found:
            return found
    return ()


def advertised_for(
    compatible: str | Sequence[str], table: Mapping[str, Advertised] = ADVERTISED
) -> Advertised | None:
    """The entry of the first compatible string the table knows; `compatible` as the file
    holds it (NUL-separated) or already split."""
    strings = parse_compatible(compatible) if isinstance(compatible, str) else compatible
    return next((table[s] for s in strings if s in table), None)


def advertised_clocks(compatible: str | Sequence[str]) -> dict[str | None, int]:
    """Core type ("Cortex-A53", or None for any) -> the clock it is sold at, in kHz;
    empty when no compatible string is in the table."""
    found = advertised_for(compatible)
    return dict(found.clocks) if found is not None else {}


def advertised_clock(clocks: Mapping[str | None, int], core: str | None) -> int | None:
    """The advertised clock of one core type: its own, else the SoC's for any core."""
    if core is not None and core in clocks:
        return clocks[core]
    return clocks.get(ANY_CORE)
