"""A SQLite store damaged in the middle of its file is refused by every command that
writes, and left as it is."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest
from store_samples import INFO, dual_outcome

from support.cli import run_cli
from wirespeed.errors import UsageError
from wirespeed.store import Store

SEED_OUTPUT = Path(__file__).parents[2] / "fixtures" / "seeds" / "r2s-br0-test1.txt"


def damaged_store(path: Path) -> bytes:
    """A store of three runs with two pages in the middle of its file overwritten, as a
    failing disk or a stray write would leave it; its bytes."""
    with Store.open(path) as store:
        for _ in range(3):
            run_id = store.begin_run(INFO)
            for repetition in range(1, 21):
                store.add_outcome(run_id, dual_outcome(repetition=repetition))
            store.finish_run(run_id, "complete")
    data = bytearray(path.read_bytes())
    page = 4096
    middle = len(data) // page // 2 * page
    data[middle : middle + 2 * page] = random.Random(12).randbytes(2 * page)
    path.write_bytes(bytes(data))
    # SQLite itself sees the damage: quick_check lists it, or (a damaged page that the
    # check itself needs) fails with "malformed".
    with sqlite3.connect(path) as check:
        try:
            assert check.execute("PRAGMA quick_check").fetchone() != ("ok",)
        except sqlite3.DatabaseError as error:
            assert "malformed" in str(error)
    check.close()
    return bytes(data)


def test_a_damaged_store_is_refused_for_writing_and_left_as_it_was(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    before = damaged_store(db)

    with pytest.raises(UsageError) as refused:
        Store.open(db)
    assert f"the store sqlite:///{db} is damaged" in refused.value.message
    assert "quick_check" in refused.value.message
    assert refused.value.hint is not None and ".recover" in refused.value.hint

    status, _, err = run_cli("import", "--db", str(db), str(SEED_OUTPUT))
    assert status == 2, err
    assert "is damaged; wirespeed does not write into it" in err
    assert "Traceback" not in err
    assert db.read_bytes() == before  # not a byte written
