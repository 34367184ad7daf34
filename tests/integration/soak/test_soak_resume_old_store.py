"""A soak stopped with Ctrl-C by the version before runs kept their settings
(tests/fixtures/stores-v6/soak-interrupted.db), finished by this version's
`wirespeed soak --resume 1` in the lab it names: the store migrated, the soak complete,
no lab left."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from soak_helpers import namespaces

from support.cli import run_cli
from wirespeed.soak.render import summary_of
from wirespeed.store import Store

pytestmark = [pytest.mark.root, pytest.mark.slow]

OLD_STORES = Path(__file__).parents[2] / "fixtures" / "stores-v6"


def test_a_soak_stored_by_the_version_before_is_finished_by_resume(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    shutil.copy(OLD_STORES / "soak-interrupted.db", db)
    with Store.open(db) as store:
        before = summary_of(store, 1)
    assert before is not None and before.header.status == "interrupted"
    lab = before.header.lab
    assert lab is not None and not namespaces(lab)

    status, _, err = run_cli("soak", "--resume", "1", "--db", str(db))
    assert status == 0, err
    assert f"soak 1: resuming after {before.watched:.0f} s" in err
    with Store.open(db) as store:
        after = summary_of(store, 1)
    assert after is not None and after.header.status == "complete"
    assert 19 <= after.watched <= 22
    assert not namespaces(lab)
