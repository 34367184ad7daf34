"""A run whose store's disk fills up mid-run stops with a message that names the trials
the store keeps and those it does not. Root: mount (a small tmpfs)."""

from __future__ import annotations

import contextlib
import errno
import time
from collections.abc import Sequence
from pathlib import Path

import pytest
from store_mounts import LOOPBACK, mounted

from wirespeed.errors import WirespeedError
from wirespeed.model import Trial, TrialOutcome, TrialStatus
from wirespeed.plan import expand, parse_plan
from wirespeed.run.runner import Runner
from wirespeed.store import Store

pytestmark = pytest.mark.root


def _fill(directory: Path) -> None:
    """Write zeros into `directory` until its file system is full."""
    block = bytes(64 * 1024)
    with (directory / "filler").open("wb", buffering=0) as filler:
        try:
            while True:
                filler.write(block)
        except OSError as error:
            assert error.errno == errno.ENOSPC
    with (directory / "filler").open("ab", buffering=0) as filler, contextlib.suppress(OSError):
        while True:  # the last bytes too
            filler.write(b"\0")


class _FillsTheDiskAtTrial:
    """Progress that fills the store's disk when the given trial starts, so that the
    trial is measured and cannot be committed."""

    def __init__(self, directory: Path, at: int) -> None:
        self.directory, self.at, self.started = directory, at, 0

    def start(self, trials: Sequence[Trial]) -> None:
        pass

    def trial_started(self, trial: Trial) -> None:
        self.started += 1
        if self.started == self.at:
            _fill(self.directory)

    def tick(self, elapsed: float) -> None:
        pass

    def step(self, text: str) -> None:
        pass

    def trial_finished(self, outcome: TrialOutcome) -> None:
        pass

    def close(self) -> None:
        pass


def test_a_run_whose_disk_fills_up_names_the_trials_kept_and_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plan = parse_plan(LOOPBACK, source="loopback.yaml")
    trials = expand(plan)
    # What each trial measured does not matter here, only that it has to be committed:
    # a failed outcome stands for it, without the tools.
    monkeypatch.setattr(
        Runner,
        "_run_one",
        lambda _self, trial, _problem=None: TrialOutcome(
            trial=trial,
            status=TrialStatus.FAILED,
            started_at=time.time(),
            finished_at=time.time(),
            reason="stands for a measured trial",
        ),
    )
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))  # the spool's directory
    disk = tmp_path / "disk"
    disk.mkdir()
    with mounted("-t", "tmpfs", "-o", "size=2m", "wirespeed-test", disk):
        with Store.open(disk / "runs.db") as store:
            runner = Runner(plan, store, _FillsTheDiskAtTrial(disk, at=2))
            with pytest.raises(WirespeedError) as failed:
                runner.run(trials)
        message = failed.value.message
        assert "database or disk is full" in message
        assert "run 1 keeps the 1 trial stored before: 1/lo/default/1" in message
        spool = tmp_path / "data" / "wirespeed" / "spool"
        assert f"not stored: 2/lo/default/1 (measured, kept in {spool}/" in message
        assert "and the 1 trial not run: 3/lo/default/1" in message
        assert failed.value.hint == (
            "`wirespeed run --resume 1` measures the trials that are not stored, "
            "once the store can be written again"
        )
        (disk / "filler").unlink()
        with Store.open(disk / "runs.db", read_only=True) as store:
            kept = store.load_run(1)
        assert [o.trial.key for o in kept.outcomes] == ["1/lo/default/1"]
