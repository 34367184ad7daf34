"""tcpreplay's frame file as a journal row: what it may name, and recovery removing it
for real on this machine after a crash, as the next run's start does."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import pytest

from wirespeed.hosts.local import LocalHost
from wirespeed.process_owner import process_owner
from wirespeed.tune.apply import recover
from wirespeed.tune.frame_undo import (
    ABSENT,
    frame_path,
    frame_target,
    path_of_target,
    removed_words,
)
from wirespeed.tune.journal import Journal
from wirespeed.tune.targets import Kind, RefusedError, check_value, parse_target


def test_a_row_names_a_frame_file_of_wirespeed_only() -> None:
    target = parse_target(frame_target("0123456789ab"))
    assert target.kind is Kind.FRAME and not target.is_file
    assert path_of_target(target.path) == "/tmp/wirespeed-frame-0123456789ab.pcap"
    assert check_value(target, ABSENT) == ABSENT
    with pytest.raises(RefusedError, match="refused value"):
        check_value(target, "/etc/passwd")
    for edited in ("frame:../../etc/x", "frame:0123456789AB", "frame:0123", "frame:"):
        with pytest.raises(RefusedError, match="not one of the knobs"):
            parse_target(edited)
    for token in ("../x", "0123456789abc", ""):
        with pytest.raises(ValueError, match="token"):
            frame_path(token)
    assert path_of_target("port:eth0") is None


def test_recovery_says_which_file_it_removed_and_where() -> None:
    said = removed_words(frame_target("0123456789ab"), "root@pc")
    assert said == (
        "removed tcpreplay's frame file /tmp/wirespeed-frame-0123456789ab.pcap on root@pc, "
        "left by a run that died"
    )
    assert removed_words("tunnel:wsw1", "local") is None


@pytest.mark.process
def test_after_a_crash_recovery_removes_the_file(tmp_path: Path) -> None:
    token = secrets.token_hex(6)
    path = Path(frame_path(token))
    path.write_bytes(b"\xd4\xc3\xb2\xa1")
    try:
        dead = process_owner().rsplit("/", 1)[0] + "/0"
        with Journal.open(tmp_path / "s.db", owner=dead) as crashed:
            crashed.record(
                session="s",
                position=0,
                host="local",
                host_boot=None,
                target=frame_target(token),
                previous=ABSENT,
                new="written",
                why="tcpreplay's frame file",
            )
        with Journal.open(tmp_path / "s.db") as journal:
            recovery = recover(journal, lambda _name: LocalHost())
            assert recovery.clean, recovery
            assert len(recovery.report.restored) == 1
            assert journal.open_entries() == []
        assert not path.exists()
    finally:
        if path.exists():
            os.unlink(path)
