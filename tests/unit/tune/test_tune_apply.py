"""Apply and restore against a copy of the R4S board tree: journaled first, restored
byte for byte, also after a crash, and nothing hostile ever written. Its IRQ numbers
are captured (seed 001's /proc/interrupts); their smp_affinity `3f` is derived, the
kernel's default for six CPUs (tests/fixtures/boards/README.md)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tune_helpers import TreeHost, copy_board, snapshot

from wirespeed.errors import HostError
from wirespeed.facts import TreeSource, collect
from wirespeed.process_owner import process_owner
from wirespeed.tune import (
    Change,
    Journal,
    RefusedError,
    State,
    apply_changes,
    recover,
    restore_entries,
    restore_session,
    suggest,
    tuned,
)

BOOT_ID = "proc/sys/kernel/random/boot_id"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return copy_board("r4s", tmp_path)


@pytest.fixture
def journal(tmp_path: Path) -> Iterator[Journal]:
    with Journal.open(tmp_path / "store.db") as opened:
        yield opened


def r4s_changes(tree: Path) -> tuple[Change, ...]:
    return suggest(collect(TreeSource(tree))).changes


def test_apply_writes_the_seed_masks_and_restore_brings_back_every_byte(
    tree: Path, journal: Journal
) -> None:
    before = snapshot(tree)
    host = TreeHost(tree)
    session = apply_changes(host, r4s_changes(tree), journal)
    assert (tree / "proc/irq/27/smp_affinity").read_text() == "10\n"
    assert (tree / "proc/irq/234/smp_affinity").read_text() == "20\n"
    assert host.read_file("/sys/class/net/eth1/queues/rx-0/rps_cpus") == "20\n"
    entries = journal.entries(session)
    assert [e.state for e in entries] == [State.APPLIED] * 4
    assert entries[0].previous == "3f\n"  # as read: the newline comes back too

    restore_session(host, journal, session)
    assert snapshot(tree) == before
    assert [e.state for e in journal.entries(session)] == [State.RESTORED] * 4


def test_the_journal_keeps_every_field_of_a_change(tree: Path, journal: Journal) -> None:
    path = "/proc/irq/27/smp_affinity"
    changes = [Change(path, None, "10", "eth0 on cpu4"), Change(path, None, "20", "then cpu5")]
    session = apply_changes(TreeHost(tree), changes, journal)
    entry, second = journal.entries(session)
    assert (entry.position, second.position, second.previous) == (0, 1, "10\n")
    assert (entry.session, entry.host, entry.owner, entry.target) == (
        session,
        "tree",
        journal.owner,
        path,
    )
    assert (entry.previous, entry.new, entry.why, entry.state) == (
        "3f\n",
        "10",
        "eth0 on cpu4",
        State.APPLIED,
    )


def test_restore_goes_in_reverse_order(tree: Path, journal: Journal) -> None:
    host = TreeHost(tree)
    path = "/proc/irq/27/smp_affinity"
    first = apply_changes(host, [Change(path, None, "10", "first")], journal)
    apply_changes(host, [Change(path, None, "20", "second")], journal)
    host.writes.clear()
    restore_entries(host, journal, journal.open_entries(host="tree"))
    assert [text for _path, text in host.writes] == ["10\n", "3f\n"]
    assert (tree / "proc/irq/27/smp_affinity").read_text() == "3f\n"
    assert journal.open_entries(session=first) == []


def test_a_live_process_does_not_recover_its_own_changes(tree: Path, journal: Journal) -> None:
    host = TreeHost(tree)
    apply_changes(host, r4s_changes(tree), journal)
    assert recover(journal, lambda _name: host).report.restored == []
    assert len(journal.open_entries()) == 4


HOSTILE_CHANGES = [
    Change("/sys/class/net/eth0/../../x/mtu", None, "1500", "traversal"),
    Change("/sys/class/net/eth0/queues/rx-0/../../../../../../etc/x", None, "1", "traversal"),
    Change("/sys/class/net/$(reboot)/mtu", None, "1500", "shell"),
    Change("/sys/class/net/eth0;reboot/mtu", None, "1500", "shell"),
    Change('/sys/class/net/eth0"/mtu', None, "1500", "quote"),
    Change("/sys/class/net/eth0\n/mtu", None, "1500", "newline"),
    Change("/proc/irq/27/smp_affinity", None, "10; reboot", "value"),
    Change("/proc/irq/27/smp_affinity", None, "$(reboot)", "value"),
    Change("/proc/irq/27/smp_affinity", None, "10\nreboot", "value"),
    Change("/sys/class/net/eth0/mtu", None, "9000'", "value"),
    Change("/sys/class/net/eth9/mtu", None, "9000", "no such interface"),
    Change("/etc/passwd", None, "x", "not a knob"),
]


@pytest.mark.parametrize("hostile", HOSTILE_CHANGES, ids=lambda c: repr(c.path + " " + c.new))
def test_a_hostile_change_is_refused_and_nothing_is_written(
    tree: Path, journal: Journal, hostile: Change
) -> None:
    before = snapshot(tree)
    host = TreeHost(tree)
    good = Change("/proc/irq/27/smp_affinity", "3f", "10", "fine")
    with pytest.raises(RefusedError):
        apply_changes(host, [good, hostile], journal)
    assert host.writes == []
    assert snapshot(tree) == before
    assert journal.open_entries() == []


def test_a_failure_half_way_restores_what_was_already_changed(tree: Path, journal: Journal) -> None:
    before = snapshot(tree)
    host = TreeHost(tree)
    changes = [
        Change("/proc/irq/27/smp_affinity", "3f", "10", "exists"),
        Change("/proc/irq/999/smp_affinity", None, "10", "no such IRQ"),
    ]
    with pytest.raises(RefusedError, match="does not exist"):
        apply_changes(host, changes, journal)
    assert snapshot(tree) == before
    assert journal.open_entries() == []


class InterruptedHost(TreeHost):
    """Ctrl-C arrives while the second knob is written."""

    def write_file(self, path: str, text: str) -> None:
        super().write_file(path, text)
        if len(self.writes) == 2:
            raise KeyboardInterrupt


def test_ctrl_c_during_apply_restores_and_propagates(tree: Path, journal: Journal) -> None:
    before = snapshot(tree)
    with pytest.raises(KeyboardInterrupt):
        apply_changes(InterruptedHost(tree), r4s_changes(tree), journal)
    assert snapshot(tree) == before
    assert journal.open_entries() == []


def test_tuned_restores_when_the_body_fails(tree: Path, journal: Journal) -> None:
    before = snapshot(tree)
    host = TreeHost(tree)
    with pytest.raises(RuntimeError), tuned(host, r4s_changes(tree), journal):
        assert (tree / "proc/irq/27/smp_affinity").read_text() == "10\n"
        raise RuntimeError("the benchmark failed")
    assert snapshot(tree) == before


def dead_owner() -> str:
    # This process's identity with another start time: a process that is gone.
    return process_owner().rsplit("/", 1)[0] + "/0"


def test_after_a_crash_a_new_journal_finds_the_changes_and_restores_them(
    tree: Path, tmp_path: Path
) -> None:
    before = snapshot(tree)
    db = tmp_path / "crash.db"
    crashed = Journal.open(db, owner=dead_owner())
    apply_changes(TreeHost(tree), r4s_changes(tree), crashed)
    crashed.close()  # the process "dies": no restore, only what the store holds remains
    assert (tree / "proc/irq/27/smp_affinity").read_text() == "10\n"

    with Journal.open(db) as journal:
        assert len(journal.open_entries(host="tree")) == 4
        recovery = recover(journal, lambda _name: TreeHost(tree))
        assert recovery.clean
        assert len(recovery.report.restored) == 4
        assert journal.open_entries() == []
    assert snapshot(tree) == before


def test_a_pending_row_whose_write_never_happened_is_restored_harmlessly(
    tree: Path, tmp_path: Path
) -> None:
    before = snapshot(tree)
    with Journal.open(tmp_path / "s.db", owner=dead_owner()) as crashed:
        crashed.record(
            session="s",
            position=0,
            host="tree",
            host_boot=None,
            target="/proc/irq/27/smp_affinity",
            previous="3f\n",
            new="10",
            why="killed before the write",
        )
    with Journal.open(tmp_path / "s.db") as journal:
        assert recover(journal, lambda _name: TreeHost(tree)).clean
    assert snapshot(tree) == before


def test_a_crashed_hosts_changes_are_refused_when_it_cannot_be_reached(
    tree: Path, tmp_path: Path
) -> None:
    with Journal.open(tmp_path / "s.db", owner=dead_owner()) as crashed:
        apply_changes(TreeHost(tree), r4s_changes(tree), crashed)

    def unreachable(name: str) -> TreeHost:
        raise HostError(f"{name} is gone")

    with Journal.open(tmp_path / "s.db") as journal:
        recovery = recover(journal, unreachable)
        assert recovery.unreachable == {"tree": "tree is gone"}
        assert len(journal.open_entries()) == 4  # kept for a later try


def test_changes_of_a_process_that_still_runs_are_left_to_it(tree: Path, tmp_path: Path) -> None:
    with Journal.open(tmp_path / "s.db", owner="otherhost/b/1/1") as other:
        apply_changes(TreeHost(tree), r4s_changes(tree), other)
    with Journal.open(tmp_path / "s.db") as journal:
        recovery = recover(journal, lambda _name: TreeHost(tree))
        assert recovery.busy == {"tree": "otherhost/b/1/1"}
        assert recovery.report.restored == []


def test_a_tampered_journal_row_is_not_written_back(tree: Path, tmp_path: Path) -> None:
    with Journal.open(tmp_path / "s.db", owner=dead_owner()) as crashed:
        crashed.record(
            session="s",
            position=0,
            host="tree",
            host_boot=None,
            target="/proc/irq/27/smp_affinity",
            previous="$(reboot)",
            new="10",
            why="edited by hand",
        )
    host = TreeHost(tree)
    with Journal.open(tmp_path / "s.db") as journal:
        recovery = recover(journal, lambda _name: host)
    assert host.writes == []
    assert [why for _entry, why in recovery.report.failed] == [
        "refused mask '$(reboot)' for /proc/irq/27/smp_affinity"
    ]


@pytest.mark.parametrize("unreadable", ["missing", "empty"])
def test_a_boot_id_that_cannot_be_read_at_restore_still_restores_everything(
    tree: Path, tmp_path: Path, unreadable: str
) -> None:
    # Without the host's boot id now there is no telling whether it rebooted: writing
    # the previous values back is harmless if it did, and leaving them changed is not.
    (tree / BOOT_ID).parent.mkdir(parents=True, exist_ok=True)
    (tree / BOOT_ID).write_text("boot-1\n")
    before = snapshot(tree)
    with Journal.open(tmp_path / "s.db", owner=dead_owner()) as crashed:
        session = apply_changes(TreeHost(tree), r4s_changes(tree), crashed)
        assert {e.host_boot for e in crashed.entries(session)} == {"boot-1"}
    if unreadable == "missing":
        (tree / BOOT_ID).unlink()
    else:
        (tree / BOOT_ID).write_text("\n")
    host = TreeHost(tree)
    with Journal.open(tmp_path / "s.db") as journal:
        recovery = recover(journal, lambda _name: host)
        assert recovery.report.expired == []
        assert len(recovery.report.restored) == 4
        assert [e.state for e in journal.entries(session)] == [State.RESTORED] * 4
    after = snapshot(tree)
    del before[BOOT_ID]
    after.pop(BOOT_ID, None)
    assert after == before


def test_after_a_reboot_the_changes_are_gone_and_not_written_back(
    tree: Path, tmp_path: Path
) -> None:
    (tree / BOOT_ID).parent.mkdir(parents=True, exist_ok=True)
    (tree / BOOT_ID).write_text("boot-1\n")
    with Journal.open(tmp_path / "s.db", owner=dead_owner()) as crashed:
        apply_changes(TreeHost(tree), r4s_changes(tree), crashed)
    (tree / BOOT_ID).write_text("boot-2\n")  # the kernel started afresh
    host = TreeHost(tree)
    with Journal.open(tmp_path / "s.db") as journal:
        recovery = recover(journal, lambda _name: host)
        assert len(recovery.report.expired) == 4
        assert journal.open_entries() == []
    assert host.writes == []
