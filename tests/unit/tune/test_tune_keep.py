"""`tune keep`'s boot script run with busybox sh on copies of the captured R4S and R2S
trees, booted again with other IRQ numbers than when the plan was made."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from tune_helpers import BOARDS, TreeHost, copy_board, snapshot

from wirespeed import __version__
from wirespeed.facts import TreeSource, collect
from wirespeed.tune import Journal, apply_changes, suggest
from wirespeed.tune.keep import KeepError, Kept, Knob, Setting, from_plan, from_variant
from wirespeed.tune.keep_script import ROOT_VARIABLE, render_script

BUSYBOX = shutil.which("busybox")
pytestmark = pytest.mark.skipif(BUSYBOX is None, reason="busybox is not installed")


def _script(board: str) -> str:
    facts = collect(TreeSource(BOARDS / board, where=f"tree {board}"))
    return render_script(from_plan(suggest(facts), facts), "wirespeed-tune")


def _boot(
    tree: Path, script: str, *args: str, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """The script as a boot runs it, with busybox's shell, on the tree instead of /."""
    assert BUSYBOX is not None
    return subprocess.run(
        [BUSYBOX, "sh", "-s", *args],
        input=script,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=cwd,
        env={"PATH": "/usr/bin:/bin", ROOT_VARIABLE: str(tree)},
    )


def _renumber(tree: Path, moves: dict[int, int]) -> None:
    """The next boot: each IRQ `old` is now IRQ `new`, in /proc/interrupts and /proc/irq."""
    interrupts = tree / "proc" / "interrupts"
    lines = interrupts.read_text().splitlines(keepends=True)
    staged = tree / "proc" / "irq-staged"
    staged.mkdir()
    for old, new in moves.items():
        (tree / "proc" / "irq" / str(old)).rename(staged / str(new))
        pattern = re.compile(rf"^\s*{old}:")
        lines = [pattern.sub(f"{new:>4}:", line) if pattern.match(line) else line for line in lines]
    for moved in staged.iterdir():
        moved.rename(tree / "proc" / "irq" / moved.name)
    staged.rmdir()
    interrupts.write_text("".join(lines))


def _irq(tree: Path, number: int) -> str:
    return (tree / "proc" / "irq" / str(number) / "smp_affinity").read_text()


def _rps(tree: Path, nic: str) -> str:
    return (tree / "sys" / "class" / "net" / nic / "queues" / "rx-0" / "rps_cpus").read_text()


@pytest.mark.process
def test_the_r4s_script_finds_each_irq_by_its_name_after_a_renumbering(tmp_path: Path) -> None:
    tree = copy_board("r4s", tmp_path)
    # The next boot gave eth0 IRQ 28 and eth1 IRQ 27 (dw-mci moved on to 99): a script by
    # number (the seed's `echo 10 > /proc/irq/27/smp_affinity`) would put eth1 on eth0's
    # core and leave eth0 where it was.
    text = (tree / "proc" / "interrupts").read_text()
    text = re.sub(r"(?m)^ 28:(.*dw-mci)$", r" 99:\1", text)
    text = re.sub(r"(?m)^ 27:(.*eth0)$", r" 28:\1", text)
    text = re.sub(r"(?m)^234:(.*eth1)$", r" 27:\1", text)
    (tree / "proc" / "interrupts").write_text(text)
    irq = tree / "proc" / "irq"
    shutil.copytree(irq / "27", irq / "28")  # both on every core, as the kernel starts them
    shutil.rmtree(irq / "234")
    booted = _boot(tree, _script("r4s"))
    assert booted.returncode == 0, booted.stderr
    assert (_irq(tree, 28), _irq(tree, 27)) == ("10\n", "20\n")
    assert (_rps(tree, "eth0"), _rps(tree, "eth1")) == ("10\n", "20\n")
    assert booted.stderr.splitlines() == [
        "wirespeed-tune: eth0: IRQ 28 (eth0) smp_affinity: 3f -> 10",
        "wirespeed-tune: eth0: rx-0 rps_cpus: 0 -> 10",
        "wirespeed-tune: eth1: IRQ 27 (eth1) smp_affinity: 3f -> 20",
        "wirespeed-tune: eth1: rx-0 rps_cpus: 0 -> 20",
    ]


@pytest.mark.process
def test_the_r2s_script_places_the_usb_nic_by_its_host_controller(tmp_path: Path) -> None:
    tree = copy_board("r2s", tmp_path)
    _renumber(tree, {29: 31, 167: 170})
    for number in (31, 170):  # a boot that left them on every core
        (tree / "proc" / "irq" / str(number) / "smp_affinity").write_text("f\n")
    booted = _boot(tree, _script("r2s"))
    assert booted.returncode == 0, booted.stderr
    assert (_irq(tree, 31), _irq(tree, 170)) == ("2\n", "4\n")
    assert (_rps(tree, "eth0"), _rps(tree, "eth1")) == ("2\n", "4\n")
    assert "eth1: IRQ 170 (xhci-hcd:usb4) smp_affinity: f -> 4" in booted.stderr


@pytest.mark.process
def test_an_interface_missing_at_boot_is_skipped_with_a_log_line(tmp_path: Path) -> None:
    tree = copy_board("r2s", tmp_path)
    (tree / "sys" / "class" / "net" / "eth0").unlink()  # the USB NIC came, eth0 did not
    (tree / "proc" / "irq" / "167" / "smp_affinity").write_text("f\n")
    booted = _boot(tree, _script("r2s"))
    assert booted.returncode == 0, booted.stderr
    assert booted.stderr.splitlines()[0] == "wirespeed-tune: eth0: not present, skipped"
    assert (_irq(tree, 29), _irq(tree, 167)) == ("2\n", "4\n")  # eth0's untouched
    assert _rps(tree, "eth1") == "4\n"


@pytest.mark.process
def test_an_interface_named_by_the_hotplug_hook_is_the_only_one_set(tmp_path: Path) -> None:
    tree = copy_board("r4s", tmp_path)
    booted = _boot(tree, _script("r4s"), "eth1")
    assert booted.returncode == 0, booted.stderr
    assert (_irq(tree, 27), _irq(tree, 234)) == ("3f\n", "20\n")
    assert (_rps(tree, "eth0"), _rps(tree, "eth1")) == ("0\n", "20\n")
    other = _boot(tree, _script("r4s"), "br-lan")  # a device it keeps nothing for
    assert (other.returncode, other.stderr) == (0, "")


@pytest.mark.process
def test_an_irq_gone_from_proc_interrupts_is_skipped_and_the_rest_set(tmp_path: Path) -> None:
    tree = copy_board("r4s", tmp_path)
    text = (tree / "proc" / "interrupts").read_text()
    (tree / "proc" / "interrupts").write_text(re.sub(r"(?m)^ 27:.*\n", "", text))
    booted = _boot(tree, _script("r4s"))
    assert booted.returncode == 0, booted.stderr
    assert "eth0: no IRQ named eth0 in /proc/interrupts, skipped" in booted.stderr
    assert (_irq(tree, 27), _rps(tree, "eth0"), _irq(tree, 234)) == ("3f\n", "10\n", "20\n")


@pytest.mark.process
def test_a_knob_that_cannot_be_written_is_said_and_the_script_fails_after_the_rest(
    tmp_path: Path,
) -> None:
    tree = copy_board("r4s", tmp_path)
    rps = tree / "sys" / "class" / "net" / "eth0" / "queues" / "rx-0" / "rps_cpus"
    rps.unlink()
    rps.mkdir()  # a write fails here even for root, as a value the kernel refuses does
    booted = _boot(tree, _script("r4s"))
    assert booted.returncode == 1
    assert "eth0: rx-0 rps_cpus: the kernel refused 10" in booted.stderr
    assert (_irq(tree, 27), _irq(tree, 234), _rps(tree, "eth1")) == ("10\n", "20\n", "20\n")


@pytest.mark.process
def test_the_script_leaves_the_state_tune_apply_leaves(tmp_path: Path) -> None:
    applied, booted_tree = copy_board("r4s", tmp_path / "a"), copy_board("r4s", tmp_path / "b")
    facts = collect(TreeSource(BOARDS / "r4s"))
    with Journal.open(tmp_path / "runs.db") as journal:
        apply_changes(TreeHost(applied), suggest(facts).changes, journal)
    booted = _boot(booted_tree, _script("r4s"))
    assert booted.returncode == 0, booted.stderr
    assert snapshot(booted_tree) == snapshot(applied) != snapshot(BOARDS / "r4s")


@pytest.mark.process
def test_a_variant_spreads_over_every_online_cpu_and_sets_the_mtu(tmp_path: Path) -> None:
    tree = copy_board("r4s", tmp_path)
    state = {"rps": "spread", "mtu": 512, "offloads": {"generic-receive-offload": "off"}}
    kept = from_variant(state, ["eth0"], "run 7, variant mtu512", "mtu512")
    assert [s.knob for s in kept.settings] == [Knob.MTU, Knob.RPS, Knob.OFFLOAD]
    booted = _boot(tree, render_script(kept, "wirespeed-tune"))
    assert booted.returncode == 0, booted.stderr
    assert (_rps(tree, "eth0"), _rps(tree, "eth1")) == ("3f\n", "0\n")  # cpus 0-5
    assert (tree / "sys" / "class" / "net" / "eth0" / "mtu").read_text() == "512\n"
    assert f"offload generic-receive-offload off skipped under {ROOT_VARIABLE}" in booted.stderr


@pytest.mark.process
def test_the_queues_are_found_whatever_directory_the_script_runs_in(tmp_path: Path) -> None:
    """`rx-*` is the sysfs tree's glob, never the current directory's: run by hand from a
    directory holding files rx-a and rx-b, the script still sets every queue."""
    tree = copy_board("r4s", tmp_path)
    here = tmp_path / "here"
    here.mkdir()
    for name in ("rx-a", "rx-b", "tx-a", "tx-b"):
        (here / name).touch()
    kept = from_variant({"rps": "spread", "xps": "3"}, ["eth0"], "run 7, variant q", "q")
    booted = _boot(tree, render_script(kept, "wirespeed-tune"), cwd=here)
    assert booted.returncode == 0, booted.stderr
    assert "eth0: rx-0 rps_cpus: 0 -> 3f" in booted.stderr
    assert _rps(tree, "eth0") == "3f\n"
    # The R4S's captured tx-0 has no xps_cpus: said by the pattern, not by the files here.
    assert "eth0: no tx-* xps_cpus, skipped" in booted.stderr
    assert "rx-a" not in booted.stderr and "tx-a" not in booted.stderr
    assert sorted(p.name for p in here.iterdir()) == ["rx-a", "rx-b", "tx-a", "tx-b"]


@pytest.mark.process
def test_what_comes_from_the_device_is_quoted_so_that_nothing_in_it_runs(
    tmp_path: Path,
) -> None:
    tree = copy_board("r4s", tmp_path)
    pwned = tmp_path / "pwned"
    name = f"eth0'$(touch {pwned})'`touch {pwned}`"  # an IRQ's name is the driver's to pick
    kept = Kept(
        "tree\n$(touch " + str(pwned) + ")",
        (
            Setting(
                "eth0", Knob.IRQ, "10", name, why="why $(touch " + str(pwned) + ")", irq_then=27
            ),
        ),
    )
    booted = _boot(tree, render_script(kept, "wirespeed-tune"))
    assert booted.returncode == 0, booted.stderr
    assert not pwned.exists()
    assert f"no IRQ named {name} in /proc/interrupts" in booted.stderr


def test_a_cpu_variant_is_refused_with_what_it_sets() -> None:
    with pytest.raises(KeepError, match=r"sets the CPUs \(cpus_online, governor\)"):
        from_variant({"cpus_online": [0], "governor": "performance"}, ["eth0"], "v", "v")


def test_a_variant_that_sets_no_network_knob_is_nothing_to_keep() -> None:
    with pytest.raises(KeepError, match="nothing to keep"):
        from_variant({"tunnel": {"cipher": "aes"}}, ["eth0"], "run 1, variant t", "t")


def test_the_script_reads_as_a_boot_script_with_its_header_and_one_call_per_knob() -> None:
    # What a person opening the file on the router reads: the interpreter line (the
    # init system runs the file itself), how to call it, where it came from (a source of
    # several lines kept on one), and each knob's call, the planned IRQ number beside
    # its IRQ by name. Nothing after the exit but the file's last newline.
    kept = Kept(
        "run 7,\n  variant   rps-a72",
        (
            Setting("eth0", Knob.IRQ, "10", "eth0", why="eth0's IRQ   on CPU 4", irq_then=27),
            Setting("eth0", Knob.IRQ, "20", "xhci-hcd:usb3"),
            Setting("eth0", Knob.RPS, "spread"),
            Setting("eth0", Knob.MTU, "1500"),
        ),
    )
    script = render_script(kept, "S99tune")
    lines = script.split("\n")
    assert lines[:9] == [
        "#!/bin/sh",
        f"# S99tune: tuning kept by wirespeed {__version__} (`wirespeed tune keep`),",
        "# from run 7, variant rps-a72.",
        "# At boot: `S99tune`; for one interface that appears later: `S99tune IF`.",
        "# Each IRQ is found by its name in /proc/interrupts: its number can change from one",
        "# boot to the next. One line per knob goes to the system log.",
        f"# {ROOT_VARIABLE}=DIR: DIR/proc and DIR/sys instead of /proc and /sys.",
        "",
        "TAG='S99tune'",
    ]
    # The functions, then one blank line before the interface's block.
    block = lines.index("if want eth0; then")
    assert lines[block - 2 : block] == ["}", ""], lines[block - 3 : block]
    assert lines[block + 1 :] == [
        "\t# eth0's IRQ on CPU 4",
        "\tirq eth0 'eth0' '10'  # IRQ 27 when planned",
        "\tirq eth0 'xhci-hcd:usb3' '20'",
        "\tqueues eth0 'rx-*' rps_cpus 'spread'",
        "\tmtu eth0 '1500'",
        "fi",
        "",
        'exit "$status"',
        "",
    ]
    assert script.endswith('\nexit "$status"\n')
