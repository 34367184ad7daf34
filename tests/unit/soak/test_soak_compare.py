"""Soaks compared side by side, and the variants of a soak plan: their checks, their
group in the store, the comparison's rate test."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from support.cli import run_cli
from support.comparison_text import compare_csv, compare_json, compare_markdown
from support.soak_samples import FIXTURES, captured_summary
from wirespeed.analysis.compare_many import Verdict
from wirespeed.errors import UsageError
from wirespeed.model import Better, Measurement
from wirespeed.soak import records
from wirespeed.soak.chunk import parse_chunk
from wirespeed.soak.comparison import POISSON, compare_soaks
from wirespeed.soak.group import group_of, still_to_soak
from wirespeed.soak.measurements import exact_rate_p_value, repetitions
from wirespeed.soak.plan import parse_soak_plan, soak_variants
from wirespeed.soak.session import judgements, variants_soaked
from wirespeed.soak.summary import SoakSummary
from wirespeed.store import Store

LAB = """title: soak
lab: {link: gbe}
path: {name: R, topology: router}
soak:
  duration: 1h
"""


@pytest.mark.parametrize(
    ("n1", "t1", "n2", "t2", "expected"),
    [
        (7, 14.0, 0, 14.0, 2 * 0.5**7),  # the seed's 7 in 14 h against none
        (0, 14.0, 7, 14.0, 2 * 0.5**7),
        (2, 14.0, 1, 14.0, 1.0),
        (0, 1.0, 0, 1.0, 1.0),
        (6, 0.5, 0, 0.5, 2 * 0.5**6),
        (4, 1.0, 4, 3.0, 0.1138),  # R: binom.test(4, 8, 0.25)$p.value
    ],
)
def test_outage_rates_are_compared_exactly(
    n1: int, t1: float, n2: int, t2: float, expected: float
) -> None:
    assert exact_rate_p_value(n1, t1, n2, t2) == pytest.approx(expected, abs=5e-4)


def _quiet(found: SoakSummary, soak_id: int, variant: str) -> SoakSummary:
    """found without its outage and kernel events, as soak soak_id of a variant."""
    quiet = replace(found, matched=(), events=(), lost=0)
    return replace(quiet, header=replace(quiet.header, id=soak_id, info={"variant": variant}))


def test_a_soak_s_figures_are_measurements_each_better_lower() -> None:
    found = captured_summary()
    [(key, figures), *chunks] = repetitions(found)
    by_name = {m.name: m for m in figures}
    assert key == "soak 1"
    assert by_name["outages"].value == len(found.matched) == 1
    assert by_name["outages per hour"].value == pytest.approx(3600 / found.watched)
    assert by_name["outages per hour"].unit == "/h"
    assert by_name["longest outage"].value == pytest.approx(found.matched[0].outage.duration)
    assert by_name["probe loss"].value == pytest.approx(found.lost / found.sent * 100)
    assert by_name["kernel link events"].value >= 1
    assert {m.better for m in figures} == {Better.LOWER}
    # The round trip's repetitions are the chunks.
    assert chunks == [
        (
            "soak 1 chunk 0",
            (
                Measurement("rtt p50", "ms", Better.LOWER, found.chunks[0]["rtt_p50_ms"]),
                Measurement("rtt p99", "ms", Better.LOWER, found.chunks[0]["rtt_p99_ms"]),
            ),
        )
    ]
    quiet = {m.name: m.value for m in repetitions(_quiet(found, 2, "a"))[0][1]}
    # No outage: none to take the median of, and the longest is 0 s.
    assert quiet["outages"] == 0 and quiet["longest outage"] == 0.0
    assert "median outage" not in quiet


def test_soaks_are_compared_measurement_by_measurement_with_a_rate_test() -> None:
    found = captured_summary()
    comparison = compare_soaks([found, _quiet(found, 2, "eee-off")])

    assert comparison.noun == "soak"
    assert [c.run_id for c in comparison.columns] == [1, 2]
    assert comparison.columns[1].label.startswith("soak 2: eee-off, ")
    rows = {row.name: row for row in comparison.rows}
    first, second = rows["outages per hour"].cells
    assert first is not None and second is not None
    assert second.test is not None and second.test.method == POISSON
    assert second.test.p_value == 1.0  # 1 outage against none: no difference shown
    assert second.verdict is Verdict.NOT_SIGNIFICANT and second.percent == -100.0
    # Against a soak of none, a rate has no ratio, but the test still says.
    reverse = compare_soaks([_quiet(found, 2, "eee-off"), found])
    cell = next(r for r in reverse.rows if r.name == "outages per hour").cells[1]
    assert cell is not None and cell.ratio is None and cell.verdict is Verdict.NOT_SIGNIFICANT
    assert rows["rtt p50"].cells[0] is not None and rows["rtt p50"].cells[0].summary.n == 1
    data = json.loads(compare_json(comparison))
    assert data["format"] == "wirespeed-compare-soaks"
    assert [column["soak_id"] for column in data["columns"]] == [1, 2]
    per_hour = next(row for row in data["rows"] if row["name"] == "outages per hour")
    assert per_hour["better"] == "lower" and per_hour["cells"][1]["p_value"] == 1.0
    markdown = compare_markdown(comparison)
    assert markdown.startswith("# 2 soaks compared\n")
    assert "| Measurement | soak 1 | soak 2 |" in markdown
    assert "soak outages per hour \N{DOWNWARDS ARROW}" in markdown
    assert compare_csv(comparison).splitlines()[0].count("soak_id,soak_label") == 1


def test_variants_become_the_lab_states_in_the_order_written() -> None:
    plan = parse_soak_plan(
        LAB + "variants: [{name: a, mtu: 9000}, {name: b, offloads: {gro: off}, rps: '3'}]"
    )
    a, b = soak_variants(plan)
    assert (a.name, a.mtu) == ("a", 9000)
    assert (b.name, b.offloads, b.rps) == ("b", (("gro", "off"),), "3")
    assert soak_variants(parse_soak_plan(LAB)) == ()


@pytest.mark.parametrize(
    ("variants", "said"),
    [
        ("variants: []", r"soak.yaml:6:1: variants: the list is empty"),
        # The second name, where the duplicate is written.
        ("variants: [{name: a}, {name: a}]", r"soak.yaml:6:30: duplicate variant name 'a'"),
        ("variants: [{name: a, governor: performance}]", r"'a' sets governor: a soak's"),
        ("variants: [{name: a, tunnel: {tun_mtu: 6000}}]", r"'a' sets tunnel"),
        ("variants: [{name: a, mttu: 9000}]", r"soak.yaml:6:22: unknown key 'mttu'"),
    ],
)
def test_bad_variants_are_refused_at_their_line(variants: str, said: str) -> None:
    with pytest.raises(UsageError, match=said):
        parse_soak_plan(LAB + variants, "soak.yaml")


def test_variants_on_real_hosts_are_refused_with_what_to_do() -> None:
    text = """hosts: {a: {address: 10.0.0.1}, b: {address: 10.0.0.2}}
path: {name: R, topology: router, client: a, server: b}
soak: {duration: 1h}
variants: [{name: a, mtu: 9000}]
"""
    with pytest.raises(UsageError, match=r"soak once per state .* --compare A B"):
        parse_soak_plan(text)


def _stored(store: Store, info: dict[str, object], status: str = "complete") -> int:
    soak_id = records.begin(store, "t", LAB, "lab", info)
    probes = parse_chunk((FIXTURES / "link_fault.irtt.json").read_text(), 10**7)
    assert probes.first_send_ns is not None and probes.last_send_ns is not None
    chunk = records.ChunkRecord(
        0, "probes", probes.first_send_ns / 1e9, probes.last_send_ns / 1e9, probes
    )
    records.add_chunk(store, soak_id, chunk)
    records.set_status(store, soak_id, status)
    return soak_id


def test_a_group_knows_which_variants_are_still_to_soak(tmp_path: Path) -> None:
    names = ["a", "b", "c"]
    with Store.open(tmp_path / "s.db") as store:
        _stored(store, {})
        first = _stored(store, {"group": "g", "variant": "a", "variants": names})
        other = _stored(store, {"group": "h", "variant": "b", "variants": names})
        header = records.load_header(store, first)
        assert header is not None
        assert still_to_soak(store, header) == ["b", "c"]
        second = _stored(store, {"group": "g", "variant": "b", "variants": names})
        assert still_to_soak(store, header) == ["c"]
        assert [soak.id for soak in group_of(store, header)] == [first, second]
        lone = records.load_header(store, other)
        assert lone is not None and [s.id for s in group_of(store, lone)] == [other]


def test_the_soaks_that_ran_are_compared_when_they_end_a_group_of_variants(
    tmp_path: Path,
) -> None:
    names = ["a", "b"]
    with Store.open(tmp_path / "s.db") as store:
        plain = _stored(store, {})
        first = _stored(store, {"group": "g", "variant": "a", "variants": names})
        assert not variants_soaked(store, [plain])
        assert not variants_soaked(store, [first])  # one variant soaked: nothing beside it
        second = _stored(store, {"group": "g", "variant": "b", "variants": names})
        assert variants_soaked(store, [second])  # resumed: the group's first soaked before
        assert variants_soaked(store, [first, second])
        assert judgements(store, [first, second]) == []  # the plan expects nothing


def test_compare_defaults_to_the_latest_group_else_the_latest_two(tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    with Store.open(db) as store:
        _stored(store, {})
        _stored(store, {})
    status, out, err = run_cli("soak", "--compare", "--db", db, "--format", "json")
    assert status == 0, err
    assert [c["soak_id"] for c in json.loads(out)["columns"]] == [1, 2]
    with Store.open(db) as store:
        for name in ("x", "y", "z"):
            _stored(store, {"group": "g", "variant": name, "variants": ["x", "y", "z"]})
    status, out, err = run_cli("soak", "--compare", "--db", db, "--format", "json")
    assert [c["soak_id"] for c in json.loads(out)["columns"]] == [3, 4, 5]  # its group
    # `compare --soaks` is the same table.
    assert run_cli("compare", "--soaks", "--db", db, "--format", "json")[1] == out
    status, out, err = run_cli("compare", "--soaks", "3", "5", "--db", db, "--format", "json")
    assert [c["label"].split(",")[0] for c in json.loads(out)["columns"]] == [
        "soak 3: x",
        "soak 5: z",
    ]
    with Store.open(db) as store:
        _stored(store, {"group": "g2", "variant": "x", "variants": ["x", "y"]}, "running")
    status, out, err = run_cli("soak", "--compare", "--db", db, "-o", str(tmp_path / "c.md"))
    assert status == 0, err
    # A group of one so far: the latest two.
    assert "| Measurement | soak 5 | soak 6 |" in (tmp_path / "c.md").read_text()


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["soak", "--compare", "1"], "comparing soaks needs two"),
        (["soak", "--compare", "1", "9"], "no soak 9"),
        (["compare", "--soaks", "1", "1"], "a soak is given twice"),
        (["soak", "--report", "--format", "csv"], "a soak's report has no CSV"),
    ],
)
def test_compare_refuses_what_it_cannot_do(tmp_path: Path, argv: list[str], said: str) -> None:
    db = str(tmp_path / "s.db")
    with Store.open(db) as store:
        _stored(store, {})
    status, _, err = run_cli(*argv, "--db", db)
    assert status == 2 and said in err, err
