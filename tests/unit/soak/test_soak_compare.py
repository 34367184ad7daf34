"""Soaks compared side by side, and the variants of a soak plan: their checks, their
group in the store, the comparison's rate test."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from support.cli import run_cli
from support.soak_samples import FIXTURES, captured_summary
from wirespeed.errors import UsageError
from wirespeed.soak import records
from wirespeed.soak.chunk import parse_chunk
from wirespeed.soak.compare import columns, rate_p_value, render_comparison
from wirespeed.soak.group import group_of, still_to_soak
from wirespeed.soak.plan import parse_soak_plan, soak_variants
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
    assert rate_p_value(n1, t1, n2, t2) == pytest.approx(expected, abs=5e-4)


def test_a_column_tells_rate_length_loss_and_events_against_the_first() -> None:
    found = captured_summary()
    quiet = replace(found, matched=(), events=(), lost=0)
    quiet = replace(quiet, header=replace(quiet.header, id=2, info={"variant": "eee-off"}))

    first, second = columns([found, quiet])

    assert (first.label, second.label) == ("link fault", "eee-off")
    assert first.outages == len(found.matched) == 1
    assert first.length_max_s == pytest.approx(found.matched[0].outage.duration)
    assert first.per_hour == pytest.approx(3600 / found.watched)
    assert first.kernel_events >= 1 and second.kernel_events == 0
    assert first.p_value is None and second.p_value == 1.0
    assert second.outages == 0 and second.mean_between_s is None
    assert first.rtt_p50_ms == found.chunks[0]["rtt_p50_ms"]
    text = render_comparison([first, second], "text")
    assert text.splitlines()[0].split() == ["link", "fault", "eee-off"]
    assert "p = 1, no difference shown" in text and "(baseline)" in text
    markdown = render_comparison([first, second], "markdown")
    assert markdown.startswith("|  | link fault | eee-off |\n|---|---|---|\n")
    assert json.loads(render_comparison([first, second], "json"))["soaks"][1]["outages"] == 0


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


def test_compare_defaults_to_the_latest_group_else_the_latest_two(tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    with Store.open(db) as store:
        _stored(store, {})
        _stored(store, {})
    status, out, err = run_cli("soak", "--compare", "--db", db, "--format", "json")
    assert status == 0, err
    assert [c["soak"] for c in json.loads(out)["soaks"]] == [1, 2]
    with Store.open(db) as store:
        for name in ("x", "y", "z"):
            _stored(store, {"group": "g", "variant": name, "variants": ["x", "y", "z"]})
    status, out, err = run_cli("soak", "--compare", "--db", db, "--format", "json")
    assert [c["label"] for c in json.loads(out)["soaks"]] == ["x", "y", "z"]  # its group
    status, out, err = run_cli("soak", "--compare", "3", "5", "--db", db, "--format", "json")
    assert [c["label"] for c in json.loads(out)["soaks"]] == ["x", "z"]
    with Store.open(db) as store:
        _stored(store, {"group": "g2", "variant": "x", "variants": ["x", "y"]}, "running")
    status, out, err = run_cli("soak", "--compare", "--db", db, "-o", str(tmp_path / "c.md"))
    assert status == 0, err
    # A group of one so far: the latest two.
    assert (tmp_path / "c.md").read_text().startswith("|  | z | x |\n")


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--compare", "1"], "needs two soaks"),
        (["--compare", "1", "9"], "no soak 9"),
        (["--compare", "--format", "html"], "text, markdown or json"),
    ],
)
def test_compare_refuses_what_it_cannot_do(tmp_path: Path, argv: list[str], said: str) -> None:
    db = str(tmp_path / "s.db")
    with Store.open(db) as store:
        _stored(store, {})
    status, _, err = run_cli("soak", *argv, "--db", db)
    assert status == 2 and said in err, err
