"""Soak plans are checked as plan files are; a soak's chunks come back from the store
exactly, and its report is built from them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.cli import run_cli
from wirespeed.cli.document_output import document_text
from wirespeed.errors import UsageError
from wirespeed.soak import records
from wirespeed.soak.chunk import parse_chunk
from wirespeed.soak.plan import parse_soak_plan
from wirespeed.soak.render import soak_result, summary_of
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
        (("kind: link", "kind: cable"), "kind: link, forwarding, freeze or restart"),
        (("kind: link", "kind: freeze"), r":7:\d+: .*a freeze fault .* needs dut_access: ssh"),
        (("topology: router", "topology: endpoint"), "topology router, nat or bridge"),
        (("chunk: 60s", "chunk: 10 parsecs"), "no duration"),
    ],
)
def test_a_bad_soak_plan_is_refused_with_what_is_wrong(change: tuple[str, str], said: str) -> None:
    with pytest.raises(UsageError, match=said):
        parse_soak_plan(PLAN.replace(*change))


def test_faults_are_for_a_lab_only_said_at_the_faults_key() -> None:
    text = """hosts: {a: {address: 10.0.0.1}, b: {address: 10.0.0.2}}
path: {name: R, topology: router, client: a, server: b}
soak:
  duration: 1h
  faults: [{at: 1m, down: 1s}]
"""
    with pytest.raises(UsageError, match=r"^s.yaml:5:3: faults: are injected into a lab DUT"):
        parse_soak_plan(text, "s.yaml")


LAB = "lab: {link: gbe}\npath: {name: R, topology: router}\n"


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (LAB, r"^s.yaml:1:1: missing key 'soak'$"),
        (
            LAB + "soak: {durtion: 8d}\n",
            r"s.yaml:3:8: unknown key 'durtion' \(did you mean 'duration'\?\)",
        ),
        (
            LAB + "soak: {duration: 8d}\n",
            r"^s.yaml:3:18: duration: must be at most 7d, got '8d'$",
        ),
        (LAB + "soak: {duration: 0}\n", r": duration: must be more than 0 s, got 0 s$"),
        (
            LAB + "soak: {duration: 1h, interval: 2s}\n",
            r": interval: must be at most 1s, got '2s'",
        ),
        (LAB + "soak: {duration: 1h, chunk: 1s}\n", r": chunk: must be at least 5s, got '1s'"),
        (
            "lab: {link: gbe}\npath: {name: R, topology: router, dut: {forward_ppz: 3}}\n"
            "soak: {duration: 1h}\n",
            r"^s.yaml:2:41: unknown key 'forward_ppz' \(did you mean 'forward_pps'\?\)$",
        ),
        (
            "hosts: {a: {address: 10.0.0.1}}\npath: {name: R, topology: router, client: a, "
            "server: b}\nsoak: {duration: 1h}\n",
            r"path.server: no host 'b' in `hosts:`",
        ),
    ],
)
def test_a_soak_plan_s_problems_are_said_in_words_at_their_line(text: str, said: str) -> None:
    with pytest.raises(UsageError, match=said) as raised:
        parse_soak_plan(text, "s.yaml")
    for raw in ("Field required", "less than or equal", "greater than", "Value error"):
        assert raw not in str(raised.value)


def test_a_fault_after_the_end_or_over_another_is_an_error_at_its_line() -> None:
    text = (
        LAB
        + """soak:
  duration: 20s
  faults:
    - {at: 5s, down: 3s}
    - {at: 25s, down: 1s}
    - {at: 6s, down: 1s}
    - {at: 8s, down: 30s}
"""
    )
    with pytest.raises(UsageError) as raised:
        parse_soak_plan(text, "s.yaml")
    assert str(raised.value).splitlines()[1:] == [
        "s.yaml:7:12: a fault at 25 s starts after the soak's end (duration 20 s)",
        "  hint: give it an `at` within the duration, or lengthen the soak",
        "s.yaml:8:7: the fault at 6 s overlaps the one at 5 s (down until 8 s)",
        "  hint: one fault at a time: start it after the one before has ended",
    ]


def test_a_run_plan_given_to_soak_is_said_to_be_one(tmp_path: Path) -> None:
    plan = tmp_path / "run.yaml"
    plan.write_text("paths:\n  - {name: R, topology: router}\ntests:\n  - {id: '1', name: t}\n")
    status, _, err = run_cli("soak", str(plan), "--db", str(tmp_path / "s.db"))
    assert status == 2, err
    assert f"{plan}:1:1: this is a run plan (it has paths:, tests: and no soak:)" in err
    assert "wirespeed run" in err
    assert not (tmp_path / "s.db").exists()


@pytest.mark.parametrize("command", ["check", "run", "soak"])
def test_a_soak_plan_with_a_stray_tests_key_is_a_soak_plan_with_the_key_said_at_its_line(
    tmp_path: Path, command: str
) -> None:
    plan = tmp_path / "soak.yaml"
    plan.write_text(LAB + "soak: {duration: 20s}\ntests:\n  - {id: '1'}\n")
    status, _, err = run_cli(
        command, str(plan), *(["--db", str(tmp_path / "s.db")] * (command != "check"))
    )
    assert status == 2, err
    assert f"{plan}:4:1: tests: a run plan's key, and this is a soak plan (it has soak:)" in err
    assert "unknown key" not in err and "Traceback" not in err
    assert not (tmp_path / "s.db").exists()


@pytest.mark.parametrize("command", ["check", "run", "soak"])
def test_a_run_plan_with_a_stray_soak_key_is_a_run_plan_with_the_key_said_at_its_line(
    tmp_path: Path, command: str
) -> None:
    plan = tmp_path / "run.yaml"
    plan.write_text(
        "lab: {link: gbe}\npaths: [{name: R, topology: router}]\ntests: [{id: '1'}]\n"
        "soak: {duration: 20s}\n"
    )
    status, _, err = run_cli(
        command, str(plan), *(["--db", str(tmp_path / "s.db")] * (command != "check"))
    )
    assert status == 2, err
    assert f"{plan}:4:1: soak: a soak plan's key, and this is a run plan" in err
    assert "unknown key" not in err and "Traceback" not in err


def test_check_checks_a_soak_plan_as_one(tmp_path: Path) -> None:
    plan = tmp_path / "soak.yaml"
    plan.write_text(LAB + "soak: {duration: 20s, faults: [{at: 5s, down: 30s}]}\n")
    status, out, err = run_cli("check", str(plan))
    assert status == 0, err
    assert out == (
        f"{plan}: ok — a soak of 20 s, a probe every 10 ms through a lab router, 1 injected fault\n"
    )
    status, out, _ = run_cli("check", "--json", str(plan))
    assert status == 0 and json.loads(out)["valid"] is True
    plan.write_text(plan.read_text() + 'expect: {outages per hour: "<= 0.5"}\n')
    status, out, err = run_cli("check", str(plan))
    assert status == 0, err
    assert out.endswith("\n  expect outages per hour <= 0.5 per hour\n")

    plan.write_text(LAB + "soak: {duration: 20s, faults: [{at: 25s, down: 1s}]}\n")
    status, _, err = run_cli("check", str(plan))
    assert status == 2
    assert f"{plan}:3:37: a fault at 25 s starts after the soak's end" in err
    status, out, _ = run_cli("check", "--json", str(plan))
    assert status == 2
    [problem] = json.loads(out)["problems"]
    assert (problem["line"], problem["column"]) == (3, 37)

    # `run` of a soak plan says what it is.
    status, _, err = run_cli("run", str(plan))
    assert status == 2 and "this is a soak plan (it has soak:)" in err


def test_ports_of_this_machine_are_refused_where_hosts_are_written() -> None:
    text = """hosts:
  a: {port: pt-a, address: 192.168.1.50/24, gateway: 192.168.1.1}
  b: {port: pt-b, address: 10.0.0.2/24}
path: {name: R, topology: router, client: a, server: b}
soak: {duration: 1h}
"""
    with pytest.raises(UsageError) as refused:
        parse_soak_plan(text)
    assert "<soak plan>:2:7: hosts.a: a port of this machine is a host of" in str(refused.value)
    assert "<soak plan>:3:7: hosts.b: a port of this machine is a host of" in str(refused.value)


def test_an_address_with_a_prefix_is_refused_in_a_soak() -> None:
    text = """hosts: {a: {address: 10.0.0.1/24}, b: {address: 10.0.0.2}}
path: {name: R, topology: router, client: a, server: b}
soak: {duration: 1h}
"""
    with pytest.raises(
        UsageError, match=r"<soak plan>:1:22: hosts\.a: an address with a prefix belongs to a port"
    ):
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
    result = soak_result(summary)
    document = json.loads(document_text(result, "json"))
    assert document["outages"][0]["direction"] == "up"
    assert document["faults"] == truth["faults"]
    page = document_text(result, "html")
    assert '<section class="card" id="outages">' in page and 'id="soak-timeline"' in page
    assert "| 1 | " in document_text(result, "markdown")


def test_a_stored_soak_is_reported_again_with_another_outage_threshold(tmp_path: Path) -> None:
    probes = parse_chunk((FIXTURES / "link_fault.irtt.json").read_text(), 10**7)
    chunk = records.ChunkRecord(0, "probes", 1.0, 4.0, probes)
    db = tmp_path / "s.db"
    with Store.open(db) as store:
        soak_id = records.begin(store, "t", PLAN, "soak-x", {})
        records.add_chunk(store, soak_id, chunk)

    status, out, _ = run_cli("soak", "--report", "--db", str(db))
    assert status == 0
    assert f"\n  soak {soak_id} (running)\n  1 outage in 3 s" in out
    assert "0.520 s, 51 lost up" in out  # the outage, in its table

    # The half-second outage lost 51 probes: not one of 100 in a row.
    status, out, _ = run_cli("soak", "--report", "--db", str(db), "--outage", "100")
    assert status == 0
    assert "no outage in 3 s" in out and "\nOutages\n" not in out


def test_a_soak_plan_is_read_as_a_run_plan_is(tmp_path: Path) -> None:
    """One loader: the first bad byte's line and column, the size limit, stdin."""
    plan = tmp_path / "p.yaml"
    plan.write_bytes(b"soak: \xff\n")
    db = str(tmp_path / "s.db")
    status, _, err = run_cli("soak", str(plan), "--db", db)
    assert status == 2 and f"{plan}:1:7: not UTF-8 text (byte 6 is 0xff)" in err, err
    assert "Traceback" not in err
    plan.write_bytes(b"#" * (1 << 20) + b"\n")
    status, _, err = run_cli("soak", str(plan), "--db", db)
    assert status == 2 and "larger than 1 MiB: not a plan file" in err, err
    status, _, err = run_cli("soak", str(tmp_path / "none.yaml"), "--db", db)
    assert status == 2 and "none.yaml: no such plan file" in err, err
    assert not (tmp_path / "s.db").exists()
