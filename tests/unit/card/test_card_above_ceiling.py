"""A card whose figures are above their physical ceiling says so, as the run's report
beneath it does: never "line rate", never a budget. (`card root@HOST --link gbe` with
HOST this machine: 43 Gbit/s of loopback on a "gigabit" link.)

Made from a real card (tests/fixtures/cards, 94 Mbit/s through a Fast Ethernet lab) as
if its plan had said the link was 10 Mbit/s: the figures are the card's, only the
link claimed is not, and each trial's figures are judged again against it as the run
would have judged them."""

from __future__ import annotations

import dataclasses
import lzma
from pathlib import Path

import pytest

from wirespeed.analysis.ceiling import ceiling_for
from wirespeed.analysis.findings import judge_result
from wirespeed.card.output import card_report, render_card
from wirespeed.card.summary import CardSummary, card_summary
from wirespeed.model import FindingKind, LinkModel, TrialOutcome
from wirespeed.store import Store
from wirespeed.store.records import RunRecord

FIXTURE = Path(__file__).parents[2] / "fixtures" / "cards" / "runs.db.xz"
CLAIMED = LinkModel(name="10mbit", rate_bps=10_000_000)
# What a judgement of the result says about the link; the rest (samples) stays.
OF_THE_LINK = (FindingKind.LINE_RATE, FindingKind.IMPOSSIBLE)


def _on_the_claimed_link(outcome: TrialOutcome) -> TrialOutcome:
    if outcome.trial.path.link is None:
        return outcome
    trial = dataclasses.replace(
        outcome.trial, path=dataclasses.replace(outcome.trial.path, link=CLAIMED)
    )
    moved = dataclasses.replace(outcome, trial=trial)
    kept = [f for f in outcome.findings if f.kind not in OF_THE_LINK]
    judged = [f for f in judge_result(moved, ceiling_for(trial)) if f.kind in OF_THE_LINK]
    return dataclasses.replace(moved, findings=(*kept, *judged))


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> RunRecord:
    path = tmp_path_factory.mktemp("cards") / "runs.db"
    path.write_bytes(lzma.decompress(FIXTURE.read_bytes()))
    store = Store.open(str(path), read_only=True)
    try:
        real = store.load_run(1, intervals="packed", outputs=True, commands=True)
    finally:
        store.close()
    outcomes = tuple(_on_the_claimed_link(o) for o in real.outcomes)
    return dataclasses.replace(real, outcomes=outcomes)


@pytest.fixture(scope="module")
def card(record: RunRecord) -> CardSummary:
    return card_summary(card_report(record))


def test_a_figure_above_its_ceiling_is_not_line_rate(card: CardSummary) -> None:
    throughput = card.part("throughput")
    assert "line rate (" not in throughput.headline
    assert throughput.headline == (
        "routes NAT at 94.2 Mbit/s (1001 % of 9.4 Mbit/s), above the physical ceiling: "
        "the link is faster than the plan says, or the figure is wrong"
    )
    assert "line rate" not in card.sentence.split(";")[0]


def test_each_figure_above_its_ceiling_is_marked_suspect(card: CardSummary) -> None:
    figures = card.part("throughput").figures + card.part("vpn").figures
    assert figures and all(f.suspect for f in figures if f.value is not None)
    tcp_up = next(f for f in figures if f.label == "TCP up")
    assert tcp_up.ceiling == "1001.0 % of 9.4 Mbit/s: above the physical ceiling, suspect"
    assert card.part("vpn").headline.startswith(
        "WireGuard 88.0 Mbit/s (above the physical ceiling, suspect)"
    )


def test_no_budget_rests_on_a_figure_that_cannot_be_true(card: CardSummary) -> None:
    assert card.good_for == ()


def test_the_card_says_what_the_report_beneath_it_says(record: RunRecord) -> None:
    text = render_card("terminal", card_report(record), record)
    card_part, report_part = text.split("above the physical ceiling", 1)
    assert "at line rate" not in card_part
    assert "above the physical ceiling" in report_part  # the report's own note
