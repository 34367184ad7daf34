"""`wirespeed site --check DIR`: each bundle whole and unedited, without personal data,
its verdict the one its trials give and valid to compare; each bad file named, exit 1."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from support.cli import run_cli
from support.site_bundles import card_bundles, export
from wirespeed.store.bundle import canonical, digest


@pytest.fixture
def results(tmp_path: Path) -> Path:
    directory = tmp_path / "results"
    card_bundles(directory, tmp_path)
    return directory


def _document(path: Path) -> dict[str, Any]:
    return json.loads(gzip.decompress(path.read_bytes()))  # type: ignore[no-any-return]


def _rewrite(path: Path, document: dict[str, Any]) -> None:
    """The bundle with its digest made again: changed by someone who knew how."""
    document.pop("digest", None)
    document["digest"] = digest(document)
    path.write_bytes(gzip.compress(canonical(document)))


def test_bundles_exported_as_they_are_pass_when_runs_not_valid_are_accepted(
    results: Path,
) -> None:
    done = run_cli("site", "--check", str(results), "--allow-invalid")
    assert done.status == 0, done.err
    assert done.out == ""
    assert "3 bundles checked, all good" in done.err
    # The lab cards ran once each on a busy machine: said, and accepted.
    assert "cards/fe-15k.wsr: run 1 is not valid: background load, lab-limited" in done.err


def test_a_run_not_valid_to_compare_fails_the_check_by_default(results: Path) -> None:
    done = run_cli("site", "--check", str(results))
    assert done.status == 1
    lines = done.out.splitlines()
    said = "cards/fe-15k.wsr: run 1 is not valid: background load, lab-limited, no repetitions"
    assert said in lines
    assert "3 bundles checked, 3 bad" in done.err


def test_each_bad_bundle_is_named_with_what_is_wrong(results: Path, tmp_path: Path) -> None:
    # Edited by hand: a figure changed, the digest left.
    edited = results / "cards" / "fe-30k.wsr"
    document = _document(edited)
    document["runs"][0]["title"] = "faster"
    edited.write_bytes(gzip.compress(canonical(document)))
    # A verdict said valid where its trials say otherwise (the digest made again).
    claimed = results / "cards" / "tuned.wsr"
    document = _document(claimed)
    document["runs"][0]["verdict"] = {"valid": True, "reasons": []}
    _rewrite(claimed, document)
    # Exported with the names kept; and one whose names were put back by hand, flagged
    # as pseudonyms with its digest made again.
    db = tmp_path / "runs.db"
    export(db, 1, results / "kept.wsr", "--keep-names")
    named = export(db, 1, results / "named.wsr", "--keep-names")
    document = _document(named)
    document["names"] = "pseudonyms"
    _rewrite(named, document)
    (results / "truncated.wsr").write_bytes((results / "cards" / "fe-15k.wsr").read_bytes()[:500])
    (results / "not-a-bundle.wsr").write_text("hello\n")

    done = run_cli("site", "--check", str(results), "--allow-invalid")

    assert done.status == 1
    said = {line.split(": ", 1)[0]: line.split(": ", 1)[1] for line in done.out.splitlines()}
    assert set(said) == {
        "cards/fe-30k.wsr", "cards/tuned.wsr", "kept.wsr", "named.wsr", "truncated.wsr",
        "not-a-bundle.wsr",
    }  # fmt: skip
    assert "changed after it was written" in said["cards/fe-30k.wsr"]
    assert "verdict says valid, its trials say not valid" in said["cards/tuned.wsr"]
    assert "--keep-names" in said["kept.wsr"]
    assert "holds personal data" in said["named.wsr"]
    assert "cut short or damaged" in said["truncated.wsr"]
    assert "Not a gzipped file" in said["not-a-bundle.wsr"]
    assert "6 bad" in done.err
    # The check does not print a name it found (its output may be public): where it is,
    # and the pseudonym it would become.
    assert any(word in said["named.wsr"] for word in ("'host", "'user", "192.0.2.", "2001:db8"))


def test_a_directory_without_bundles_is_a_usage_error(tmp_path: Path) -> None:
    done = run_cli("site", "--check", str(tmp_path))
    assert done.status == 2
    assert "no bundles (*.wsr) under it" in done.err
    done = run_cli("site", "--check", str(tmp_path / "missing"))
    assert done.status == 2 and "not a directory" in done.err
    done = run_cli("site", "--check", str(tmp_path), "-o", str(tmp_path / "x"))
    assert done.status == 2 and "--check writes nothing" in done.err
