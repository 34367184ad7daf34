"""Soak plans are checked as plan files are; a soak's chunks come back from the store
exactly, and its report is built from them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.cli import run_cli
from wirespeed.errors import UsageError
from wirespeed.soak import records
from wirespeed.soak.chunk import parse_chunk
from wirespeed.soak.plan import parse_soak_plan
from wirespeed.soak.render import render, summary_of
from wirespeed.store import Store

FIXTURES = Path(__file__).parents[2] / "fixtures" / "soak"

PLAN = """title: lab soak
lab: {link: gbe}
path: {name: R, topology: router}
soak:
  duration: 14h
  chunk: 60s
  faults: [{at: 10m, down: 3.2s, kind: link}]
"""


def test_durations_are_read_with_their_units() -> None:
    plan = parse_soak_plan(PLAN)

    assert plan.soak.duration == 14 * 3600
    assert plan.soak.interval == 0.01
    assert plan.soak.faults[0].at == 600
    assert plan.soak.faults[0].down == 3.2


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (("duration: 14h", "durtion: 14h"), "durtion"),
        (("kind: link", "kind: cable"), "kind: link or forwarding"),
        (("topology: router", "topology: endpoint"), "topology router, nat or bridge"),
        (("chunk: 60s", "chunk: 10 parsecs"), "no duration"),
    ],
)
def test_a_bad_soak_plan_is_refused_with_what_is_wrong(change: tuple[str, str], said: str) -> None:
    with pytest.raises(UsageError, match=said):
        parse_soak_plan(PLAN.replace(*change))


def test_faults_are_for_a_lab_only() -> None:
    text = """hosts: {a: {address: 10.0.0.1}, b: {address: 10.0.0.2}}
path: {name: R, topology: router, client: a, server: b}
soak: {duration: 1h, faults: [{at: 1m, down: 1s}]}
"""
    with pytest.raises(UsageError, match="lab DUT only"):
        parse_soak_plan(text)


def test_ports_of_this_machine_are_refused_where_hosts_are_written() -> None:
    text = """hosts:
  a: {port: pt-a, address: 192.168.1.50/24, gateway: 192.168.1.1}
  b: {port: pt-b, address: 10.0.0.2/24}
path: {name: R, topology: router, client: a, server: b}
soak: {duration: 1h}
"""
    with pytest.raises(UsageError, match=r"^<soak plan>:1:1: hosts: a, b: a port of this "):
        parse_soak_plan(text)


def test_an_address_with_a_prefix_is_refused_in_a_soak() -> None:
    text = """hosts: {a: {address: 10.0.0.1/24}, b: {address: 10.0.0.2}}
path: {name: R, topology: router, client: a, server: b}
soak: {duration: 1h}
"""
    with pytest.raises(UsageError, match="hosts: a: an address with a prefix belongs to a port"):
        parse_soak_plan(text)


def test_a_chunk_comes_back_from_the_store_as_it_went_in(tmp_path: Path) -> None:
    probes = parse_chunk((FIXTURES / "link_fault.irtt.json").read_text(), 10**7)
    truth = json.loads((FIXTURES / "link_fault.truth.json").read_text())
    chunk = records.ChunkRecord(
        position=0, kind="probes", started_at=1.0, ended_at=4.0, probes=probes,
        counters={"wan": {"tx_timeout_count": 1}}, faults=tuple(truth["faults"]),
        notes=("a note",),
    )  # fmt: skip
    with Store.open(tmp_path / "s.db") as store:
        soak_id = records.begin(store, "t", PLAN, "soak-x", {})
        records.add_chunk(store, soak_id, chunk)
        records.set_status(store, soak_id, "complete")
        loaded = records.load(store, soak_id)
        summary = summary_of(store, soak_id)

    assert loaded is not None
    header, [back] = loaded
    assert header.status == "complete"
    assert back == chunk
    assert summary is not None
    assert len(summary.matched) == 1
    document = json.loads(render(summary, "json"))
    assert document["outages"][0]["direction"] == "up"
    assert document["faults"] == truth["faults"]
    assert "<section id='soak'>" in render(summary, "html")
    assert "| 1 |" in render(summary, "markdown")


def test_a_stored_soak_is_reported_again_with_another_outage_threshold(tmp_path: Path) -> None:
    probes = parse_chunk((FIXTURES / "link_fault.irtt.json").read_text(), 10**7)
    chunk = records.ChunkRecord(0, "probes", 1.0, 4.0, probes)
    db = tmp_path / "s.db"
    with Store.open(db) as store:
        soak_id = records.begin(store, "t", PLAN, "soak-x", {})
        records.add_chunk(store, soak_id, chunk)

    status, out, _ = run_cli("soak", "--report", "--db", str(db))
    assert status == 0
    assert out.startswith(f"soak {soak_id} (running): 1 outage in 3 s")

    # The half-second outage lost 51 probes: not one of 100 in a row.
    status, out, _ = run_cli("soak", "--report", "--db", str(db), "--outage", "100")
    assert status == 0
    assert "no outage in 3 s" in out
