"""Bundles: `wirespeed export` and `wirespeed import` of runs, on the two real lab device
cards of tests/fixtures/cards/runs.db.xz and on a run that names real machines."""

from __future__ import annotations

import dataclasses
import gzip
import json
import lzma
import re
import socket
from pathlib import Path
from typing import Any

import pytest
from store_backends import BACKENDS, fresh_store
from store_samples import dual_outcome

from support.cli import run_cli
from support.samples import store_runs, wan_path
from wirespeed.model import RawOutput, Side, TrialOutcome
from wirespeed.store import Store
from wirespeed.store.bundle import VERSION, canonical, digest
from wirespeed.store.records import RunInfo, RunRecord, RunStatus

CARDS = Path(__file__).resolve().parents[2] / "fixtures" / "cards" / "runs.db.xz"


@pytest.fixture
def cards(tmp_path: Path) -> str:
    db = tmp_path / "cards.db"
    db.write_bytes(lzma.decompress(CARDS.read_bytes()))
    return str(db)


def _export(db: str, path: Path, *options: str) -> None:
    done = run_cli("export", *options, "-o", str(path), "--db", db)
    assert done.status == 0, done.err


def _document(path: Path) -> dict[str, object]:
    return json.loads(gzip.decompress(path.read_bytes()))  # type: ignore[no-any-return]


def _rewrite(path: Path, document: dict[str, object], *, fix_digest: bool) -> None:
    if fix_digest:
        document.pop("digest")
        document["digest"] = digest(document)
    path.write_bytes(gzip.compress(canonical(document)))


def test_a_card_s_round_trip_is_byte_identical_and_keeps_every_trial(
    cards: str, tmp_path: Path
) -> None:
    first, again = tmp_path / "card.wsr", tmp_path / "again.wsr"
    _export(cards, first, "1", "--keep-names")
    other = str(tmp_path / "elsewhere" / "other.db")
    (tmp_path / "elsewhere").mkdir()
    done = run_cli("import", str(first), "--db", other)
    assert done.status == 0, done.err
    assert "imported as run 1" in done.err
    _export(other, again, "1", "--keep-names")
    assert first.read_bytes() == again.read_bytes()
    with Store.open(cards, read_only=True) as store:
        original = store.load_run(1)
    with Store.open(other, read_only=True) as store:
        imported = store.load_run(1)
    # Raw outputs, samples, findings and all; a search's options as a mapping (a bundle's
    # JSON keeps its keys sorted, not in the order the plan's schema listed them).
    assert _unordered(imported.outcomes) == _unordered(original.outcomes)
    assert imported.info == original.info and imported.status == original.status


def _unordered(outcomes: tuple[TrialOutcome, ...]) -> list[object]:
    same: list[object] = []
    for outcome in outcomes:
        test = outcome.trial.test
        options = [
            None if o is None else (o.as_dict(), o.timeout) for o in (test.bench, test.search)
        ]
        plain = dataclasses.replace(test, bench=None, search=None)
        same.append(
            (
                dataclasses.replace(outcome, trial=dataclasses.replace(outcome.trial, test=plain)),
                options,
            )
        )
    return same


def test_a_pseudonymized_round_trip_is_byte_identical(cards: str, tmp_path: Path) -> None:
    first, again = tmp_path / "card.wsr", tmp_path / "again.wsr"
    _export(cards, first, "1", "2")
    assert run_cli("import", str(first), "--db", str(tmp_path / "other.db")).status == 0
    _export(str(tmp_path / "other.db"), again, "1", "2")
    assert first.read_bytes() == again.read_bytes()


def test_the_same_bundle_imported_twice_is_one_run(cards: str, tmp_path: Path) -> None:
    bundle = tmp_path / "card.wsr"
    _export(cards, bundle, "2")
    other = str(tmp_path / "other.db")
    assert run_cli("import", str(bundle), "--db", other).status == 0
    done = run_cli("import", str(bundle), str(bundle), "--db", other)
    assert done.status == 0, done.err
    assert done.err.count("is stored already, as run 1") == 2
    with Store.open(other, read_only=True) as store:
        assert [run.id for run in store.list_runs()] == [1]


def test_the_bundle_says_its_format_version_verdict_and_identity(
    cards: str, tmp_path: Path
) -> None:
    bundle = tmp_path / "card.wsr"
    _export(cards, bundle, "1")
    document = _document(bundle)
    assert (document["format"], document["version"], document["names"]) == (
        "wirespeed-bundle",
        VERSION,
        "pseudonyms",
    )
    runs: list[dict[str, Any]] = document["runs"]  # type: ignore[assignment]
    (run,) = runs
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", run["id"])
    # The lab card was made on a saturated machine, each part once: not valid to share.
    assert run["verdict"]["valid"] is False
    reasons = " ".join(run["verdict"]["reasons"])
    assert "lab-limited" in reasons and "no repetitions" in reasons
    assert run["identity"]["bench"] == "lab"
    assert run["identity"]["paths"]["NAT"] == {
        "topology": "nat",
        "link": "fe",
        "link_bps": 100_000_000,
    }
    assert run["plan_text"].startswith("# wirespeed card")
    assert all(trial["raw_outputs"] for trial in run["trials"])


@pytest.mark.parametrize("newer", [VERSION + 1, 99])
def test_a_bundle_of_a_newer_format_is_refused_with_the_version_it_needs(
    cards: str, tmp_path: Path, newer: int
) -> None:
    bundle = tmp_path / "card.wsr"
    _export(cards, bundle, "1")
    document = _document(bundle)
    document["version"] = newer
    _rewrite(bundle, document, fix_digest=True)
    other = tmp_path / "other.db"
    done = run_cli("import", str(bundle), "--db", str(other))
    assert done.status == 2
    assert f"bundle format version {newer} needs a newer wirespeed" in done.err
    assert f"reads version {VERSION}" in done.err and "nothing was imported" in done.err
    assert "Traceback" not in done.err
    assert not other.exists()


def test_a_truncated_bundle_is_refused_and_nothing_is_stored(cards: str, tmp_path: Path) -> None:
    good, cut = tmp_path / "good.wsr", tmp_path / "cut.wsr"
    _export(cards, good, "1")
    data = good.read_bytes()
    cut.write_bytes(data[: len(data) // 2])
    other = tmp_path / "other.db"
    # The whole import is refused: the good bundle given first is not stored either.
    done = run_cli("import", str(good), str(cut), "--db", str(other))
    assert done.status == 2
    assert "cut.wsr: not a whole bundle" in done.err and "nothing was imported" in done.err
    assert "Traceback" not in done.err
    assert not other.exists()


def test_an_edited_bundle_is_refused_by_its_digest(cards: str, tmp_path: Path) -> None:
    bundle = tmp_path / "card.wsr"
    _export(cards, bundle, "1")
    document = _document(bundle)
    run = document["runs"][0]  # type: ignore[index]
    trial = next(t for t in run["trials"] if t["result"] and t["result"]["directions"])
    trial["result"]["directions"][0]["received"][2] *= 2  # a figure doubled by hand
    _rewrite(bundle, document, fix_digest=False)
    done = run_cli("import", str(bundle), "--db", str(tmp_path / "other.db"))
    assert done.status == 2
    assert "changed after it was written: its digest does not match" in done.err
    # Edited with the digest made again: the run no longer matches its own id.
    _rewrite(bundle, document, fix_digest=True)
    done = run_cli("import", str(bundle), "--db", str(tmp_path / "other.db"))
    assert done.status == 2
    assert "does not match its id" in done.err
    assert not (tmp_path / "other.db").exists()


def test_a_file_that_is_not_a_bundle_is_refused(tmp_path: Path) -> None:
    fake = tmp_path / "notes.wsr"
    fake.write_bytes(gzip.compress(b'{"format": "something-else"}'))
    done = run_cli("import", str(fake), "--db", str(tmp_path / "other.db"))
    assert done.status == 2 and "not a wirespeed bundle" in done.err
    fake.write_text("plain text")
    done = run_cli("import", str(fake), "--db", str(tmp_path / "other.db"))
    assert done.status == 2 and "not a whole bundle" in done.err
    assert "Traceback" not in done.err


def test_export_refuses_what_it_cannot_do(cards: str, tmp_path: Path) -> None:
    done = run_cli("export", "-o", str(tmp_path / "x.wsr"), "--db", str(tmp_path / "none.db"))
    assert done.status == 2 and "no store at" in done.err
    done = run_cli("export", "7", "-o", str(tmp_path / "x.wsr"), "--db", cards)
    assert done.status == 2 and "no run 7" in done.err
    done = run_cli("export", "1", "1", "-o", str(tmp_path / "x.wsr"), "--db", cards)
    assert done.status == 2 and "given twice" in done.err
    done = run_cli("export", "1", "-o", str(tmp_path), "--db", cards)
    assert done.status == 2 and "is a directory" in done.err
    assert run_cli("export", "1", usage_exit_as_status=True).status == 2  # no -o
    assert not (tmp_path / "x.wsr").exists()


# A run that names real machines and people: what a bundle must not carry by default.
SECRET_HOSTS = ("r4s.home.example", "alices-laptop", socket.gethostname())
SECRET_ADDRESSES = ("192.168.1.1", "10.20.30.40", "fd12:3456:789a::1", "e4:5f:01:aa:bb:cc")
SECRET_USERS = ("alice", "bob")
SECRET_PATHS = ("/home/alice/.ssh/bench_config",)
PLAN = """\
title: R4S at home
hosts:
  r4s: {address: 192.168.1.1, ssh: bob@r4s.home.example}
  ws: {ssh: alice@alices-laptop}
paths:
  - {name: WAN, topology: endpoint, client: ws, server: r4s, link: gbe}
tests: [{id: "#4"}]
"""


def _named_run() -> RunRecord:
    outcome = dual_outcome(wan_path(client="ws"))
    raw = RawOutput(
        host="bob@r4s.home.example",
        side=Side.CLIENT,
        argv=("iperf", "-c", "192.168.1.1", "-d"),
        format="text",
        text="[  3] local 10.20.30.40 port 5001 connected with 192.168.1.1 port 36630\n"
        "link/ether e4:5f:01:aa:bb:cc inet6 fd12:3456:789a::1/64\n"
        f"Linux {socket.gethostname()} 6.1.0 #1 SMP\n",
    )
    outcome = dataclasses.replace(outcome, raw=(raw,))
    return RunRecord(
        id=1,
        status=RunStatus.COMPLETE,
        finished_at=1_607_544_200.0,
        outcomes=(outcome,),
        info=RunInfo(
            title="R4S at home",
            started_at=1_607_544_000.0,
            argv=("run", "plan.yaml", "--ssh-config", SECRET_PATHS[0]),
            plan_path="/home/alice/bench/plan.yaml",
            plan_text=PLAN,
            provenance={
                "hosts": {
                    "r4s": {"kernel": "Linux 5.10.12", "role": "server", "iperf2": "2.0.13"},
                    "ws": {"kernel": "Linux 6.1.0", "role": "client", "iperf2": "2.1.8"},
                }
            },
        ),
    )


def test_a_bundle_names_no_host_address_user_or_ssh_config(tmp_path: Path) -> None:
    db = str(tmp_path / "runs.db")
    store_runs(db, _named_run())
    bundle = tmp_path / "home.wsr"
    _export(db, bundle, "1")
    text = gzip.decompress(bundle.read_bytes()).decode()
    for secret in (*SECRET_HOSTS, *SECRET_ADDRESSES, *SECRET_USERS, *SECRET_PATHS):
        assert secret.lower() not in text.lower(), secret
    document = json.loads(text)
    plan = document["runs"][0]["plan_text"]
    assert len(re.findall(r"ssh: user\d@host\d\}", plan)) == 2
    assert "address: 192.0.2.1" in plan  # an address stays an address
    # What is not personal stays: the lab words, tool versions, kernels.
    assert "Linux 5.10.12" in text and "2.0.13" in text and "topology: endpoint" in plan
    # The run still reads as a run: it imports, and its figures are those measured.
    other = str(tmp_path / "other.db")
    assert run_cli("import", str(bundle), "--db", other).status == 0
    with Store.open(other, read_only=True) as store:
        imported = store.load_run(1)
    original: TrialOutcome = _named_run().outcomes[0]
    assert imported.outcomes[0].result == original.result
    assert imported.outcomes[0].raw[0].argv == ("iperf", "-c", "192.0.2.1", "-d")
    # Pseudonyms met again stay as they are: the round trip is byte-identical.
    again = tmp_path / "again.wsr"
    _export(other, again, "1")
    assert again.read_bytes() == bundle.read_bytes()


def test_keep_names_keeps_them(tmp_path: Path) -> None:
    db = str(tmp_path / "runs.db")
    store_runs(db, _named_run())
    bundle = tmp_path / "home.wsr"
    _export(db, bundle, "1", "--keep-names")
    text = gzip.decompress(bundle.read_bytes()).decode()
    document = json.loads(text)
    assert document["names"] == "kept"
    for secret in ("r4s.home.example", "192.168.1.1", "alice", SECRET_PATHS[0]):
        assert secret in text


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_bundle_imports_once_into_either_backend_and_comes_back_the_same(
    cards: str, tmp_path: Path, backend: str
) -> None:
    bundle, again = tmp_path / "card.wsr", tmp_path / "again.wsr"
    _export(cards, bundle, "1", "2")
    with fresh_store(backend, tmp_path) as db:
        assert run_cli("import", str(bundle), "--db", db).status == 0
        done = run_cli("import", str(bundle), "--db", db)
        assert done.status == 0 and done.err.count("is stored already") == 2
        with Store.open(db, read_only=True) as store:
            assert [run.id for run in store.list_runs()] == [1, 2]
        _export(db, again, "1", "2")
    assert again.read_bytes() == bundle.read_bytes()
