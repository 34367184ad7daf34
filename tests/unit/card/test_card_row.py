"""`report --row`: a card as one Markdown row for forum tables, on the two real lab cards
of tests/fixtures/cards/runs.db.xz."""

from __future__ import annotations

import lzma
from pathlib import Path

import pytest

from support.cli import run_cli

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "cards" / "runs.db.xz"


@pytest.fixture
def db(tmp_path: Path) -> str:
    path = tmp_path / "cards.db"
    path.write_bytes(lzma.decompress(FIXTURE.read_bytes()))
    return str(path)


def test_a_card_s_row_has_its_figures_and_verdict(db: str) -> None:
    done = run_cli("report", "2", "--row", "--row-header", "--db", db)
    assert done.status == 0, done.err
    header, rule, row = done.out.splitlines()
    assert header.startswith("| Device | SoC | Firmware | Kernel | TCP | NDR 64 B |")
    assert rule.count("|") == header.count("|") == row.count("|") == 11
    cells = [c.strip() for c in row.strip("|").split("|")]
    # The lower of each direction: NDR 64 B in 22,244 and out 29,251 packets/s.
    assert cells[4:9] == ["94.2 Mbit/s", "22,244 pps", "87.3 Mbit/s", "681.5 MB/s", "B"]
    assert cells[2] == "Debian GNU/Linux 12 (bookworm)"
    assert cells[9] == "not valid: background load, lab-limited, no repetitions"
    # Without the header: the row alone, to append to a table.
    assert run_cli("report", "2", "--row", "--db", db).out == row + "\n"


def test_a_run_that_is_not_a_card_has_no_row(tmp_path: Path) -> None:
    from support.samples import run_record, store_runs

    db = str(tmp_path / "runs.db")
    store_runs(db, run_record())
    done = run_cli("report", "1", "--row", "--db", db)
    assert done.status == 2 and "is not a device card" in done.err
