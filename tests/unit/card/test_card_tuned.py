"""`card --tuned`: the plan's stock and tuned variants (the tuned one the network parts
only, with `tune suggest`'s changes), and a real tuned lab card (tests/fixtures/cards/
tuned.db.xz) shown stock → tuned beside each network figure."""

from __future__ import annotations

import dataclasses
import json
import lzma
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.cli import run_cli
from wirespeed.card.output import card_report, render_card
from wirespeed.card.plan_text import CardOptions, Tuned, card_marker, card_plan
from wirespeed.card.summary import CardSummary, card_summary
from wirespeed.card.target import Ends, LabOptions, card_bench
from wirespeed.card.tuning_choice import tuned_of
from wirespeed.facts import Facts, TreeSource, collect
from wirespeed.plan import expand
from wirespeed.plan.load import parse_plan
from wirespeed.plan.problems import PlanError
from wirespeed.store import Store
from wirespeed.store.records import RunRecord

FIXTURES = Path(__file__).parents[2] / "fixtures"
NETWORK = ["tcp-up", "tcp-down", "tcp-both", "udp", "fwd", "rrul", "vpn"]


def test_tuned_runs_the_network_parts_in_a_second_variant_and_compute_once() -> None:
    plan = card_plan(card_bench("lab", LabOptions(), Ends()), CardOptions(tuned=Tuned()))
    assert [v.name for v in plan.variants] == ["stock", "tuned"]
    stock, tuned = plan.variants
    assert stock.changes_nothing and stock.tests is None
    assert tuned.tune == "suggest" and tuned.tests == tuple(NETWORK)
    trials = expand(plan)
    assert {t.test.id for t in trials if t.variant == "tuned"} == set(NETWORK)
    assert {t.test.id for t in trials if t.variant == "stock"} == {*NETWORK, "crypto", "7z"}
    marker = card_marker(plan.text)
    assert marker is not None and marker["tuned"] == {"changes": [], "nothing": ""}


def test_without_a_suggestion_or_a_network_part_the_card_runs_once() -> None:
    bench = card_bench("lab", LabOptions(), Ends())
    nothing = Tuned(nothing="tune suggest has nothing to change on root@r2s")
    plan = card_plan(bench, CardOptions(tuned=nothing))
    assert [v.name for v in plan.variants] == ["default"]
    marker = card_marker(plan.text)
    assert marker is not None and marker["tuned"]["nothing"] == nothing.nothing
    skipped = {key: "left out" for key in ("throughput", "forwarding", "latency", "vpn")}
    compute_only = card_plan(bench, CardOptions(tuned=Tuned(), skipped=skipped))
    assert [v.name for v in compute_only.variants] == ["default"]
    marker = card_marker(compute_only.text)
    assert marker is not None and "no network part" in marker["tuned"]["nothing"]


@pytest.fixture(scope="module")
def r4s() -> Facts:
    return collect(TreeSource(FIXTURES / "boards" / "r4s"))


def test_a_device_s_suggestion_is_asked_before_the_run_as_tune_suggest_says_it(
    r4s: Facts,
) -> None:
    device = card_bench("root@192.168.2.1", LabOptions(), Ends())
    tuned = tuned_of(device, r4s)
    assert not tuned.nothing
    assert "IRQ 27 (eth0): 3f (cpus 0-5) → 10 (cpu 4)" in tuned.changes  # seed 001's recipe
    assert "RPS eth1 rx-0: 0 (off) → 20 (cpu 5)" in tuned.changes
    bare = tuned_of(device, dataclasses.replace(r4s, nics=()))
    assert bare.nothing == (
        "tune suggest has nothing to change on root@192.168.2.1 "
        "(no physical network interface found)"
    )
    one_cpu = dataclasses.replace(r4s, clusters=(), irq_cpus=(0,))
    assert "one CPU" in tuned_of(card_bench("lab", LabOptions(), Ends()), one_cpu).nothing


def test_a_variant_s_tests_must_be_the_plan_s() -> None:
    text = (
        "lab: {topology: nat}\npaths: [{name: NAT, topology: nat}]\n"
        "tests: [{id: tcp-up}]\n"
        "variants: [{name: stock}, {name: tuned, tune: suggest, tests: [tcp-upp]}]\n"
    )
    with pytest.raises(PlanError) as error:
        parse_plan(text, "tuned.yaml")
    assert "tuned.yaml:4" in str(error.value) and "'tcp-upp'" in str(error.value)
    with pytest.raises(PlanError):
        parse_plan(text.replace("tune: suggest", "tune: guess"), "tuned.yaml")


def test_print_plan_with_tuned_shows_both_variants() -> None:
    status, out, err = run_cli("card", "lab", "--tuned", "--print-plan")
    assert status == 0, err
    assert '{"name": "tuned", "tune": "suggest", "tests": ["tcp-up",' in out


# -- a real tuned card ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunRecord]:
    db = tmp_path_factory.mktemp("tuned") / "runs.db"
    db.write_bytes(lzma.decompress((FIXTURES / "cards" / "tuned.db.xz").read_bytes()))
    store = Store.open(str(db), read_only=True)
    try:
        yield store.load_run(1, intervals="packed", outputs=True, commands=True)
    finally:
        store.close()


@pytest.fixture(scope="module")
def card(record: RunRecord) -> CardSummary:
    return card_summary(card_report(record))


def test_each_network_figure_is_stock_then_tuned_with_compare_s_change(
    card: CardSummary,
) -> None:
    up = next(f for f in card.part("throughput").figures if f.label == "TCP up")
    assert up.text == "94.4 Mbit/s" and up.tuned == "94.2 Mbit/s"
    assert up.change == "\N{MINUS SIGN}0.2 %~"  # two a side: never significant
    ndr = next(f for f in card.part("forwarding").figures if f.label == "NDR 64 B in")
    assert ndr.value is not None and ndr.tuned_value is not None
    assert ndr.change.startswith("+") and ndr.change.endswith("%~")
    assert round((ndr.tuned_value / ndr.value - 1) * 100, 1) == float(ndr.change[1:-3])
    # Compute ran once, stock: its figures have no tuned twin.
    assert card.part("compute").figures
    assert not any(f.tuned for f in card.part("compute").figures)
    # The summary is the stock card's; the A/B has its own lines.
    assert card.sentence.startswith("routes NAT at line rate (94.4 Mbit/s)")
    assert card.tuned[0].startswith("tuned: what tune suggest proposed for the DUT")
    assert card.tuned[-1].startswith("tuned against stock: TCP up \N{MINUS SIGN}0.2 %~")


def test_the_bufferbloat_grade_s_change_is_the_medians_unmarked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """docs/card.md: a figure only the card derives (the grade) has its change from the
    medians, without compare's mark, though its value is the latency increase's, whose
    row in the A/B table is marked."""
    from types import SimpleNamespace

    from wirespeed.card.parts import LATENCY
    from wirespeed.card.summary import Figure, PartSummary
    from wirespeed.card.tuned import TunedPairs

    monkeypatch.setattr(
        "wirespeed.report.compare_many_render.percent_text", lambda cell: "+10.0 %*"
    )

    def cell(median: float) -> SimpleNamespace:
        return SimpleNamespace(summary=SimpleNamespace(median=median))

    row = SimpleNamespace(cells=(cell(20.0), cell(22.0)))  # the increase's A/B row
    pairs = TunedPairs("stock", None, (), (row,))  # type: ignore[arg-type]

    def part(increase: float, letter: str) -> PartSummary:
        return PartSummary(
            LATENCY,
            "",
            (
                Figure("bufferbloat grade", increase, "grade", letter),
                Figure("latency increase (round trip)", increase, "ms", f"+{increase} ms"),
            ),
        )

    grade, increase = pairs.paired(part(20.0, "A"), part(22.0, "B"))
    assert increase.change == "+10.0 %*"  # the A/B table's, marked
    assert grade.tuned == "B" and grade.change == "+10.0 %"  # the medians', unmarked


def test_the_ab_is_in_every_format(card: CardSummary, record: RunRecord) -> None:
    report = card_report(record)
    text = render_card("terminal", report, record)
    # The card's row of TCP up: stock, tuned, the change as `compare` marks it.
    row = "│ TCP up               │ 94.4 Mbit/s │ 94.2 Mbit/s │ \N{MINUS SIGN}0.2 %~ │"
    assert row in text.split("\nDevice card:", 1)[0]
    assert "Variants against stock" in text  # the report's own A/B table below
    markdown = render_card("markdown", report, record)
    assert "| Figure | Stock | Tuned | Change | Ceiling | Spread |" in markdown
    assert "| TCP up | 94.4 Mbit/s | 94.2 Mbit/s | \N{MINUS SIGN}0.2 %~ |" in markdown
    document = json.loads(render_card("json", report, record))["card"]
    figures = {(part["key"], f["label"]): f for part in document["parts"] for f in part["figures"]}
    assert figures[("throughput", "TCP up")]["tuned"]["text"] == "94.2 Mbit/s"
    assert figures[("throughput", "TCP up")]["tuned"]["value"] == pytest.approx(94.2e6, rel=1e-3)
    assert figures[("compute", "AES-128-GCM 8 KB")]["tuned"] is None
    assert document["tuned"][0].startswith("tuned:")
    page = render_card("html", report, record)
    assert (
        '<tr><td>TCP up</td><td class="num">94.4 Mbit/s</td><td class="num">94.2 Mbit/s</td>'
        '<td class="num">\N{MINUS SIGN}0.2 %~</td>'
    ) in page
    assert '<p class="line">tuned: what tune suggest proposed' in page


def test_a_card_without_tuned_has_no_ab(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    db.write_bytes(lzma.decompress((FIXTURES / "cards" / "runs.db.xz").read_bytes()))
    store = Store.open(str(db), read_only=True)
    try:
        plain = card_summary(card_report(store.load_run(1, intervals="packed")))
    finally:
        store.close()
    assert plain.tuned == ()
    assert not any(f.tuned for part in plain.parts for f in part.figures)


def test_the_estimate_counts_the_network_parts_twice_and_compute_once() -> None:
    from wirespeed.cli.commands.card import _estimate

    bench = card_bench("lab", LabOptions(), Ends())
    once = dict(e.split(" ", 1) for e in _estimate(card_plan(bench, CardOptions())))
    twice = dict(e.split(" ", 1) for e in _estimate(card_plan(bench, CardOptions(tuned=Tuned()))))
    assert once["throughput"] == "~21 s" and twice["throughput"] == "~42 s"
    assert once["compute"] == twice["compute"]


def test_a_device_s_changes_are_listed_on_the_card(record: RunRecord) -> None:
    from wirespeed.card.tuned import tuned_pairs, tuned_words

    changes = ["IRQ 27 (eth0): 3f (cpus 0-5) → 10 (cpu 4)", "RPS eth0 rx-0: 0 (off) → 10 (cpu 4)"]
    lines = tuned_words({"changes": changes, "nothing": ""}, tuned_pairs(card_report(record)), ())
    assert lines == (
        "tuned: tune suggest's 2 change(s), journaled and restored after",
        "  IRQ 27 (eth0): 3f (cpus 0-5) → 10 (cpu 4)",
        "  RPS eth0 rx-0: 0 (off) → 10 (cpu 4)",
    )


def test_a_plain_card_beside_a_tuned_one_shares_the_stock_figures_rows(
    record: RunRecord, tmp_path: Path
) -> None:
    from wirespeed.card.compare import compare_cards

    db = tmp_path / "plain.db"
    db.write_bytes(lzma.decompress((FIXTURES / "cards" / "runs.db.xz").read_bytes()))
    with Store.open(str(db), read_only=True) as store:
        plain = store.load_run(2, intervals="packed")
    cards = compare_cards([plain, record])
    rows = cards.whole.rows
    up = [r for r in rows if r.test_id == "tcp-up" and r.unit == "bit/s"]
    # The plain card's `default` and the tuned card's `stock`: one row, a cell each.
    shared = [r for r in up if r.variant == "default"]
    assert shared and all(c is not None for r in shared for c in r.cells)
    # The tuned figures: rows of their own, which the plain card has no cell in.
    tuned = [r for r in up if r.variant == "tuned"]
    assert tuned and all(r.cells[0] is None and r.cells[1] is not None for r in tuned)
    assert not any(r.variant == "stock" for r in rows)


# The tuned card's figures: (label, unit, text, share of the ceiling, spread over the two
# stock repetitions, the tuned variant's, compare's change). Compute ran in stock only.
TUNED_FIGURES: dict[str, list[tuple[str, ...]]] = {
    "throughput": [
        (
            "TCP up",
            "bit/s",
            "94.4 Mbit/s",
            "100.3 % of 94.1 Mbit/s",
            "CV 0.2 % over 2",
            "94.2 Mbit/s",
            "\N{MINUS SIGN}0.2 %~",
        ),
        (
            "TCP down",
            "bit/s",
            "94.4 Mbit/s",
            "100.3 % of 94.1 Mbit/s",
            "CV 0.09 % over 2",
            "94.1 Mbit/s",
            "\N{MINUS SIGN}0.3 %~",
        ),
        (
            "TCP both ways (up)",
            "bit/s",
            "88.7 Mbit/s",
            "94.3 % of 94.1 Mbit/s",
            "CV 1.7 % over 2",
            "90.8 Mbit/s",
            "+2.3 %~",
        ),
        (
            "TCP both ways (down)",
            "bit/s",
            "89.5 Mbit/s",
            "95.1 % of 94.1 Mbit/s",
            "CV 4.2 % over 2",
            "88.7 Mbit/s",
            "\N{MINUS SIGN}0.9 %~",
        ),
        (
            "UDP",
            "bit/s",
            "95.6 Mbit/s",
            "99.9 % of 95.7 Mbit/s",
            "CV 0.01 % over 2",
            "95.7 Mbit/s",
            "+0.1 %~",
        ),
    ],
    "forwarding": [
        (
            "NDR 64 B in",
            "pps",
            "19,147 pps",
            "12.9 % of the frame-rate ceiling",
            "CV 77.9 % over 2",
            "29,658 pps",
            "+54.9 %~",
        ),
        (
            "PDR 64 B in",
            "pps",
            "19,450 pps",
            "13.1 % of the frame-rate ceiling",
            "CV 78.9 % over 2",
            "30,263 pps",
            "+55.6 %~",
        ),
        (
            "NDR 64 B out",
            "pps",
            "29,685 pps",
            "19.9 % of the frame-rate ceiling",
            "CV 0.04 % over 2",
            "29,668 pps",
            "\N{MINUS SIGN}0.1 %~",
        ),
        (
            "PDR 64 B out",
            "pps",
            "30,290 pps",
            "20.4 % of the frame-rate ceiling",
            "CV 0.04 % over 2",
            "30,273 pps",
            "\N{MINUS SIGN}0.1 %~",
        ),
    ],
    "compute": [
        ("AES-128-GCM 8 KB", "B/s", "2.26 GB/s", "", "CV 29.4 % over 2", "", ""),
        ("AES-256-GCM 8 KB", "B/s", "1.28 GB/s", "", "CV 41.0 % over 2", "", ""),
        ("AES-128-CBC 8 KB", "B/s", "631.9 MB/s", "", "CV 26.7 % over 2", "", ""),
        ("AES-256-CBC 8 KB", "B/s", "619.6 MB/s", "", "CV 4.7 % over 2", "", ""),
        ("CHACHA20-POLY1305 8 KB", "B/s", "2.20 GB/s", "", "CV 1.2 % over 2", "", ""),
        ("7-zip, all threads", "MIPS", "3,021 MIPS", "", "CV 5.7 % over 2", "", ""),
    ],
    "device": [
        ("trials sampled", "", "24 of 24", "", "", "", ""),
    ],
}


def test_each_figure_of_the_tuned_card_is_stock_with_its_spread_then_tuned(
    record: RunRecord,
) -> None:
    card = card_summary(card_report(record))  # made here: the fixture's may be cached
    for key, expected in TUNED_FIGURES.items():
        part = card.part(key)
        assert [
            (f.label, f.unit, f.text, f.ceiling, f.spread, f.tuned, f.change) for f in part.figures
        ] == expected, key
    # The device across the whole card, both variants: every one of its 24 trials.
    assert len(record.outcomes) == 24
    assert card.part("device").headline == "never throttled, no temperature sensor"
    # Good for: the stock variant's slower TCP way, not the tuned one's.
    assert card.good_for == (
        "through the device (94.4 Mbit/s, the slower way): 15 streams of 6 Mbit/s, "
        "3 streams of 25 Mbit/s, 2.95 Msps sc16",
    )
    assert card.sentence == (
        "routes NAT at line rate (94.4 Mbit/s); 64 B NDR 19,147 pps in, 29,685 pps out; "
        "AES-256-GCM 1.28 GB/s; CHACHA20-POLY1305 2.20 GB/s; 7-zip 3,021 MIPS; "
        "never throttled, no temperature sensor"
    )
