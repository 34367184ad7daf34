"""The advertised clocks by device tree compatible strings, and reading those strings."""

from __future__ import annotations

import re

from wirespeed.facts.advertised import (
    ADVERTISED,
    ANY_CORE,
    advertised_clock,
    advertised_clocks,
    advertised_for,
    parse_compatible,
    read_compatible,
)
from wirespeed.facts.cpus import ARM_PARTS
from wirespeed.facts.read import TreeSource

from .conftest import BOARDS


def test_the_neo2_tree_reads_its_board_then_its_soc() -> None:
    source = TreeSource(BOARDS / "neo2")
    assert read_compatible(source) == ("friendlyarm,nanopi-neo2", "allwinner,sun50i-h5")
    raw = source.read("/proc/device-tree/compatible")
    assert raw == "friendlyarm,nanopi-neo2\0allwinner,sun50i-h5\0"  # through the link


def test_a_machine_without_a_device_tree_has_no_compatible() -> None:
    assert read_compatible(TreeSource(BOARDS / "x86-virtio-vm")) == ()
    assert parse_compatible(None) == () and parse_compatible("") == ()


def test_the_clocks_come_from_the_file_as_it_is_or_from_its_strings() -> None:
    raw = "friendlyarm,nanopi-neo2\0allwinner,sun50i-h5\0"
    assert advertised_clocks(raw) == {"Cortex-A53": 1_500_000}
    assert advertised_clocks(parse_compatible(raw)) == {"Cortex-A53": 1_500_000}
    assert advertised_clocks(("friendlyarm,nanopi-r4s", "rockchip,rk3399")) == {
        "Cortex-A72": 2_000_000,
        "Cortex-A53": 1_500_000,
    }
    assert advertised_clocks(("acme,unknown-board", "acme,unknown-soc")) == {}


def test_the_first_known_string_decides() -> None:
    found = advertised_for(("raspberrypi,3-model-b-plus", "brcm,bcm2837"))
    assert found is not None and found.clocks == {"Cortex-A53": 1_400_000}
    found = advertised_for(("raspberrypi,3-model-b", "brcm,bcm2837"))
    assert found is not None and found.clocks == {"Cortex-A53": 1_200_000}


def test_a_soc_whose_cores_cpuinfo_does_not_name_has_a_clock_for_any_core() -> None:
    clocks = advertised_clocks(("mediatek,mt7621-soc",))
    assert advertised_clock(clocks, None) == 880_000
    assert advertised_clock(clocks, "MIPS 1004Kc") == 880_000
    # A core type of its own is not given another type's clock.
    assert advertised_clock({"Cortex-A72": 2_000_000}, "Cortex-A53") is None


def test_every_entry_names_what_is_sold_and_cores_cpuinfo_can_name() -> None:
    known_cores = set(ARM_PARTS.values())
    for compatible, entry in ADVERTISED.items():
        assert re.fullmatch(r"[a-z0-9-]+,[a-z0-9-]+", compatible), compatible
        assert entry.name and entry.clocks, compatible
        for core, khz in entry.clocks.items():
            assert core is ANY_CORE or core in known_cores, (compatible, core)
            assert 100_000 <= khz <= 5_000_000, (compatible, khz)
