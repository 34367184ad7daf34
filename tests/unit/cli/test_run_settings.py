"""A run's settings (run/settings.py): stored with the run as data, read back as they
were; a run stored before runs kept them (tests/fixtures/stores-v6) has them read from
its stored command line, as the version that measured it read it."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from wirespeed.cli.stored_settings import settings_from_command_line
from wirespeed.errors import UsageError
from wirespeed.run.resume import settings_of_run
from wirespeed.run.settings import RunSettings, SettingsError
from wirespeed.store import RunInfo, Store
from wirespeed.store.resume import ResumableRun, resumable_run

OLD_STORES = Path(__file__).parents[2] / "fixtures" / "stores-v6"

A_RUN = RunSettings(
    only=("1", "5"),
    duration=2.5,
    repetitions=3,
    watch=("dut", "client"),
    sample_interval=0.25,
    lab_dut="ssh",
    labels={"firmware": "23.05.3"},
)


@pytest.mark.parametrize(
    "settings", [A_RUN, RunSettings(), RunSettings(card=True, watch=(), lab_dut="ssh")]
)
def test_settings_come_back_from_their_stored_form_as_they_were(settings: RunSettings) -> None:
    assert RunSettings.from_json(settings.to_json()) == settings


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"version": 2}, "settings of version 2, not 1"),
        ({"version": None}, "settings of version None, not 1"),
        ({"duration": "2"}, "'2' is not"),
        ({"repetitions": True}, "True is not"),
        ({"watch": "dut"}, "'dut' is not"),
        ({"only": [1]}, "1 is not"),
        ({"labels": {"firmware": 23}}, "23 is not"),
        ({"card": None}, "None is not"),
    ],
)
def test_stored_settings_not_of_this_form_are_refused(change: dict[str, Any], said: str) -> None:
    with pytest.raises(SettingsError, match=said):
        RunSettings.from_json(A_RUN.to_json() | change)


def test_a_runs_command_line_gives_its_settings() -> None:
    argv = ["run", "plan.yaml", "--only", "1, 2", "--duration", "1", "--repeat", "2",
            "--sample-interval", "0.5", "--watch", "dut,server", "--lab-dut", "ssh",
            "--label", "firmware=old", "--db", "runs.db", "-q"]  # fmt: skip
    assert settings_from_command_line(7, argv) == RunSettings(
        only=("1", "2"),
        duration=1.0,
        repetitions=2,
        watch=("dut", "server"),
        sample_interval=0.5,
        lab_dut="ssh",
    )
    assert settings_from_command_line(7, ["run", "plan.yaml"]) == RunSettings()


def test_a_cards_command_line_gives_a_cards_settings() -> None:
    argv = ["card", "lab:nat:fe", "--duration", "1", "--repeat", "2", "--watch", "", "--db", "x"]
    # Its durations and repetitions are in its plan: not settings of the run.
    assert settings_from_command_line(3, argv) == RunSettings(card=True, watch=())


def test_a_command_line_this_version_cannot_read_is_said_so() -> None:
    with pytest.raises(UsageError, match="the command line stored with run 4 cannot be read"):
        settings_from_command_line(4, ["run", "--no-such-option"])


def test_a_run_keeps_its_settings_in_the_store(tmp_path: Path) -> None:
    with Store.open(str(tmp_path / "runs.db")) as store:
        run = store.begin_run(
            RunInfo(title="t", started_at=1.0, argv=("run", "-x"), settings=A_RUN.to_json())
        )
        stored = resumable_run(store, run)
        assert stored.settings == A_RUN.to_json()
        assert stored_settings(stored) == A_RUN  # not the command line, which is not one
        unset = resumable_run(store, store.begin_run(RunInfo(title="t", started_at=2.0)))
        assert unset.settings is None


def test_settings_this_version_cannot_read_are_said_so(tmp_path: Path) -> None:
    with Store.open(str(tmp_path / "runs.db")) as store:
        later = A_RUN.to_json() | {"version": 2}
        run = store.begin_run(RunInfo(title="t", started_at=1.0, settings=later))
        with pytest.raises(UsageError, match=rf"the settings stored with run {run} cannot be"):
            stored_settings(resumable_run(store, run))


@pytest.mark.parametrize(
    ("store", "settings"),
    [
        (
            "run-interrupted.db",
            RunSettings(only=("1", "2"), duration=1.0, watch=("dut",), sample_interval=0.5),
        ),
        ("card-interrupted.db", RunSettings(card=True, watch=("dut",))),
    ],
)
def test_a_run_stored_by_the_version_before_has_the_settings_of_its_command_line(
    tmp_path: Path, store: str, settings: RunSettings
) -> None:
    db = tmp_path / store
    shutil.copy(OLD_STORES / store, db)
    with Store.open(str(db)) as opened:  # migrated to this version's schema
        stored = resumable_run(opened, 1)
    assert stored.settings is None
    assert stored_settings(stored) == settings


def stored_settings(stored: ResumableRun) -> RunSettings:
    """The settings `run --resume` measures with."""
    return settings_of_run(stored, settings_from_command_line)


BENCHMARKS = """
lab: {link: gbe}
paths: [{name: DUT, topology: device}]
tests:
  - {id: aes, tool: openssl, options: {ciphers: [aes-128-cbc], seconds: 1}}
"""
WITH_TRAFFIC = """
lab: {link: gbe}
paths: [{name: R, topology: router}]
tests:
  - {id: tcp, tool: iperf3}
"""


@pytest.mark.parametrize(
    ("plan", "duration", "said"),
    [(BENCHMARKS, 2.0, True), (BENCHMARKS, None, False), (WITH_TRAFFIC, 2.0, False)],
)
def test_a_duration_that_changes_no_trial_is_said(
    plan: str, duration: float | None, said: bool
) -> None:
    from wirespeed.plan import parse_plan
    from wirespeed.run.settings import trials_of, unused_duration

    settings = RunSettings(duration=duration)
    unused = unused_duration(trials_of(parse_plan(plan), settings), settings)
    assert (unused is not None) is said
    if said:
        assert unused is not None and unused.startswith("--duration 2 changes nothing here")
