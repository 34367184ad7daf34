"""`wirespeed facts` as a user runs it: text, JSON, and bad input without tracebacks."""

from __future__ import annotations

import argparse
import io
import json
import shutil
from pathlib import Path

import pytest

from wirespeed.cli.commands import facts as facts_command
from wirespeed.cli.env import Environment
from wirespeed.cli.exit import ExitStatus, run_guarded
from wirespeed.cli.parser import build_parser

from .conftest import BOARDS


def documented_parser() -> argparse.ArgumentParser:
    """The parser `wirespeed` parses the command line with."""
    return build_parser()


def run_facts(*argv: str) -> tuple[int, str, str]:
    args = documented_parser().parse_args(["facts", *argv])
    out, err = io.StringIO(), io.StringIO()
    env = Environment(stdout=out, stderr=err, stdout_is_tty=False, stderr_is_tty=False)
    status = run_guarded(env, lambda: facts_command.execute(args, env), show_traceback=False)
    return status, out.getvalue(), err.getvalue()


def test_r4s_text_names_both_nics_their_irqs_and_the_fast_cluster() -> None:
    status, out, _ = run_facts("--root", str(BOARDS / "r4s"))
    assert status == ExitStatus.OK
    assert "FriendlyElec NanoPi R4S" in out
    assert "IRQ 27 eth0 (GICv3 44 Level)" in out
    assert "IRQ 234 eth1 (ITS-MSI 524288 Edge)" in out
    assert out.count("affinity 3f = cpus 0-5; handled on CPU0 ") == 2
    assert "cpu0-3     Cortex-A53    1.4 GHz\n" in out
    assert "cpu4-5     Cortex-A72    1.8 GHz  <- fastest" in out


def test_r4s_json_is_versioned_and_says_where_each_irq_runs() -> None:
    status, out, _ = run_facts("--root", str(BOARDS / "r4s"), "--json")
    document = json.loads(out)
    assert status == ExitStatus.OK
    assert (document["format"], document["version"]) == ("wirespeed-facts", 1)
    clusters = document["cpus"]["clusters"]
    assert [(c["cpus"], c["max_khz"], c["fastest"]) for c in clusters] == [
        ([0, 1, 2, 3], 1416000, False),
        ([4, 5], 1800000, True),
    ]
    irqs = {n["name"]: n["irqs"] for n in document["nics"]}
    assert [(i["irq"], i["handled_on"], i["smp_affinity"]) for i in irqs["eth0"]] == [
        (27, [0], "3f")
    ]
    assert [(i["irq"], i["handled_on"], i["found_by"]) for i in irqs["eth1"]] == [(234, [0], "msi")]
    assert document["tools"] is None  # not looked up for a captured tree
    assert document["kernel"] == {"release": "5.4.75", "version": None}


def test_r2s_json_ties_the_usb_nic_to_the_host_controller_irq() -> None:
    _, out, _ = run_facts("--root", str(BOARDS / "r2s"), "--json")
    eth1 = next(n for n in json.loads(out)["nics"] if n["name"] == "eth1")
    assert eth1["bus"] == "usb" and eth1["irq_device"] == "xhci-hcd.0.auto"
    assert [(i["irq"], i["names"], i["handled_on"]) for i in eth1["irqs"]] == [
        (167, ["xhci-hcd:usb4"], [2])
    ]


def test_a_root_that_does_not_exist_is_a_usage_error_without_traceback() -> None:
    status, out, err = run_facts("--root", "/nonexistent/board")
    assert status == ExitStatus.USAGE
    assert "no such directory" in err and "Traceback" not in err
    assert out == ""


def test_a_root_that_is_not_a_tree_is_a_usage_error(tmp_path: Path) -> None:
    status, _, err = run_facts("--root", str(tmp_path))
    assert status == ExitStatus.USAGE
    assert "not a captured /proc + /sys tree" in err


def test_host_and_root_together_are_a_usage_error() -> None:
    status, _, err = run_facts("somewhere", "--root", str(BOARDS / "r4s"))
    assert status == ExitStatus.USAGE
    assert "either HOST or --root" in err


def test_an_unknown_host_is_a_usage_error() -> None:
    status, _, err = run_facts("no-such-namespace-xyz")
    assert status == ExitStatus.USAGE
    assert "unknown host" in err


def test_missing_optional_files_become_nulls_not_crashes(tmp_path: Path) -> None:
    board = tmp_path / "r4s"
    shutil.copytree(BOARDS / "r4s", board, symlinks=True)
    shutil.rmtree(board / "sys/devices/system/cpu/cpufreq")
    (board / "proc/interrupts").unlink()
    (board / "proc/cpuinfo").unlink()
    (board / "sys/firmware/devicetree/base/model").unlink()
    (board / "sys/devices/platform/fe300000.ethernet/net/eth0/speed").unlink()
    (board / "proc/irq/234/smp_affinity").unlink()
    status, out, _ = run_facts("--root", str(board), "--json")
    document = json.loads(out)
    assert status == ExitStatus.OK
    assert document["board"] == {"model": None, "from": None}
    assert document["cpus"]["cpufreq"] is False
    assert [c["cpus"] for c in document["cpus"]["clusters"]] == [[0, 1, 2, 3, 4, 5]]
    eth0, eth1 = document["nics"]
    assert eth0["speed_mbps"] is None and eth0["irqs"] == []  # no /proc/interrupts to match
    assert eth1["irqs"][0]["smp_affinity"] is None
    assert eth1["irqs"][0]["counts"] == {}


def test_the_captured_vm_says_no_cpufreq_no_thermal_and_eth0_virtio() -> None:
    status, out, _ = run_facts("--root", str(BOARDS / "x86-virtio-vm"))
    assert status == ExitStatus.OK
    assert "no cpufreq" in out
    assert "no thermal zones" in out
    assert "eth0     virtio   virtio_net" in out


@pytest.mark.skipif(not Path("/proc/interrupts").exists(), reason="needs Linux /proc")
@pytest.mark.process
def test_this_machine_is_described_without_arguments() -> None:
    status, out, err = run_facts()
    assert status == ExitStatus.OK, err
    assert out.startswith("facts of this machine\n")
    assert "  kernel      " in out and "  iperf       " in out
