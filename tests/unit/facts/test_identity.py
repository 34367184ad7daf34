"""A device's identity and configuration read with busybox sh alone: the identity script
run by this machine's busybox against the captured /proc + /sys + /etc trees of real
boards (tests/fixtures/boards, README there says what each file is), parsed."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from wirespeed.facts.identity import IDENTITY_SCRIPT, parse_identity

BOARDS = Path(__file__).resolve().parents[2] / "fixtures" / "boards"
BUSYBOX = shutil.which("busybox")
pytestmark = [
    pytest.mark.process,
    pytest.mark.skipif(BUSYBOX is None, reason="busybox is not installed"),
]


def _identity(board: str) -> dict[str, Any]:
    assert BUSYBOX is not None
    done = subprocess.run(
        [BUSYBOX, "sh", "-c", IDENTITY_SCRIPT, "sh", str(BOARDS / board)],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    assert done.stderr == ""
    return parse_identity(done.stdout)


def test_the_r4s_is_an_rk3399_with_its_two_nics() -> None:
    found = _identity("r4s")
    assert found["board"] == "FriendlyElec NanoPi R4S"
    assert found["soc"] == "RK3399 (guessed from its cores)"  # 4 A53 and 2 A72 cores
    assert (found["kernel"], found["distribution"]) == ("5.4.75", "OpenWrt 19.07.4")
    nics = found["nics"]
    assert nics["eth0"]["driver"] == "rk_gmac-dwmac" and nics["eth1"]["driver"] == "r8169"
    # Seed 001's interrupts before tuning: both NICs' IRQs on every core.
    assert nics["eth0"]["irq_affinity"] == {"27": "0-5"}
    assert nics["eth1"]["irq_affinity"] == {"234": "0-5"}
    assert nics["eth0"]["steering"] == {"rps rx-0": "0"}
    assert "br-lan" not in nics  # a bridge is no NIC


def test_the_r2s_s_usb_nic_and_its_cores() -> None:
    found = _identity("r2s")
    assert found["board"] == "FriendlyElec NanoPi R2S"
    assert found["soc"] == "4 \N{MULTIPLICATION SIGN} Cortex-A53"  # no device tree names it
    assert found["nics"]["eth1"]["driver"] == "r8152"
    assert found["nics"]["eth0"]["irq_affinity"] == {"29": "1"}


def test_an_rk3588_board_with_a_multi_queue_nic() -> None:
    found = _identity("rk3588")
    assert found["soc"] == "RK3588 (guessed from its cores)"
    assert found["nics"]["eth0"]["driver"] == "r8125"
    assert set(found["nics"]["eth0"]["irq_affinity"]) == {str(n) for n in range(141, 147)}


def test_an_x86_virtual_machine() -> None:
    found = _identity("x86-virtio-vm")
    assert (found["distribution"], found["release"]) == ("Debian GNU/Linux 12 (bookworm)", "12")
    assert found["nics"]["eth0"]["driver"] == "virtio_net"
    assert "AMD EPYC" in found["soc"]
    # A tree is not a live kernel: nothing of ethtool, tc or nft is asked of this machine.
    assert not {"qdiscs", "firewall_rules"} & set(found)
    assert "offloads" not in found["nics"]["eth0"]


def test_output_that_says_nothing_gives_nothing() -> None:
    assert parse_identity("") == {}
    assert parse_identity("@@ file model\n\n@@ nic eth0\ndriver=\n") == {"nics": {"eth0": {}}}


def test_a_card_says_what_was_read_in_one_line() -> None:
    from wirespeed.analysis.identity import identity_line

    line = identity_line(_identity("r4s"))
    assert line == (
        "SoC RK3399 (guessed from its cores), OpenWrt 19.07.4, eth0 rk_gmac-dwmac, eth1 r8169"
    )
    assert identity_line({}) is None
