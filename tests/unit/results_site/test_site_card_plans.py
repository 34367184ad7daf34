"""A results site's cards share a few plans: each card's stored plan differs from another
device's only in its `x-card:` marker (its facts name the board), and how many trials the
plan runs (what an unfinished card lacks) is worked out once per plan, not per card."""

from __future__ import annotations

import dataclasses
import json
import lzma
from collections.abc import Iterator
from pathlib import Path

import pytest

from wirespeed.card.output import card_report
from wirespeed.card.plan_text import card_marker
from wirespeed.card.summary import card_summary
from wirespeed.card.unfinished import _planned_of, without_marker
from wirespeed.store import Store
from wirespeed.store.records import RunRecord, RunStatus

FIXTURE = Path(__file__).parents[2] / "fixtures" / "cards" / "runs.db.xz"


@pytest.fixture(scope="module")
def card(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunRecord]:
    db = tmp_path_factory.mktemp("cards") / "runs.db"
    db.write_bytes(lzma.decompress(FIXTURE.read_bytes()))
    store = Store.open(str(db), read_only=True)
    try:
        yield store.load_run(2, intervals="packed", outputs=True, commands=True)
    finally:
        store.close()


def _on_board(record: RunRecord, board: str, *, first: int) -> RunRecord:
    """The card as another board's: its marker's facts name it; interrupted after the
    first `first` trials."""
    text = record.info.plan_text or ""
    lines = text.splitlines()
    for number, line in enumerate(lines):
        if line.startswith("x-card:"):
            marker = json.loads(line.partition(":")[2])
            marker["facts"] = [f"board {board}", *marker["facts"][1:]]
            lines[number] = "x-card: " + json.dumps(marker, ensure_ascii=False)
    info = dataclasses.replace(record.info, plan_text="\n".join(lines) + "\n")
    kept = record.outcomes[:first]
    packed = None if record.packed is None else record.packed[:first]
    return dataclasses.replace(
        record, info=info, status=RunStatus.INTERRUPTED, outcomes=kept, packed=packed
    )


def test_cards_of_two_boards_parse_their_plan_once_and_say_the_same_of_it(
    card: RunRecord,
) -> None:
    one, other = (_on_board(card, board, first=2) for board in ("Board Ä 1", "Board 2"))
    assert card_marker(one.info.plan_text) != card_marker(other.info.plan_text)
    _planned_of.cache_clear()
    said = [card_summary(card_report(record)) for record in (one, other)]
    assert _planned_of.cache_info().misses == 1
    total = len(card.outcomes)
    assert said[0].unfinished.startswith(f"interrupted after 2 of {total} trials")
    assert said[0].unfinished == said[1].unfinished
    assert [p.unfinished for p in said[0].parts] == [p.unfinished for p in said[1].parts]


def test_only_a_marker_of_json_as_written_is_emptied(card: RunRecord) -> None:
    text = card.info.plan_text or ""
    emptied = without_marker(text)
    assert "x-card: {}\n" in emptied and emptied.count("\n") == text.count("\n")
    assert card_marker(emptied) == {}
    # Anything YAML might read otherwise than JSON does is parsed as it is.
    marker = next(line for line in text.splitlines() if line.startswith("x-card:"))
    for odd in (
        marker.replace(", ", ",  ", 1),  # not as json.dumps writes it
        marker[:-1] + ', "version": 2}',  # a key twice
        marker[:-1] + ', "bell": "\u0085"}',  # a character YAML does not allow
        "x-card: &card " + marker.partition(":")[2].strip(),  # an anchor
        marker + "\n" + marker,  # two markers
    ):
        changed = text.replace(marker, odd)
        assert without_marker(changed) == changed, odd
    assert without_marker("tests: []\n") == "tests: []\n"
