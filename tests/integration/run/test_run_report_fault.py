"""A run whose report cannot be rendered is not lost: `wirespeed run` ends with the run's
id, the way to read it back and exit status 1, not with a traceback; the run is stored
complete and `wirespeed report` reads it. A one-second openssl benchmark on this machine
is the run."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path
from unittest import mock

import pytest

from support.cli import run_cli
from wirespeed.store import Store
from wirespeed.store.records import RunStatus

pytestmark = [
    pytest.mark.root,
    pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl"),
]

PLAN = """
    title: a report that fails to render
    hosts:
      here: {}
    paths:
      - {name: here, topology: device, dut: here}
    tests:
      - id: aes
        tool: openssl
        options: {ciphers: [aes-128-cbc], blocks: [1K], evp: without, seconds: 1}
"""


def _broken_table(*_: object) -> None:
    raise TypeError("'int' object is not iterable")


@pytest.mark.parametrize("flags", [(), ("--traceback",)])
def test_a_report_that_fails_to_render_leaves_the_run_stored_and_says_how_to_read_it(
    tmp_path: Path, flags: tuple[str, ...]
) -> None:
    plan, db, markdown = tmp_path / "plan.yaml", tmp_path / "runs.db", tmp_path / "r.md"
    plan.write_text(textwrap.dedent(PLAN), encoding="utf-8")
    with mock.patch("wirespeed.report.terminal.render_document", _broken_table):
        status, _, err = run_cli(
            *flags, "run", str(plan), "--db", str(db), "--markdown", str(markdown)
        )
    assert status == 1, err
    assert (
        "wirespeed: error: run 1 is stored, but its report could not be rendered "
        "(TypeError: 'int' object is not iterable)"
    ) in err
    assert "`wirespeed report 1 --format json` gives its figures" in err
    assert ("Traceback (most recent call last)" in err) == bool(flags)
    # The table failed; the Markdown report, rendered apart, is written all the same.
    assert "AES-128-CBC" in markdown.read_text(encoding="utf-8")
    with Store.open(str(db), read_only=True) as store:
        record = store.load_run(1)
    assert record.status is RunStatus.COMPLETE
    assert [o.status.value for o in record.outcomes] == ["ok"]
    status, out, err = run_cli("report", "1", "--db", str(db), "--format", "json")
    assert status == 0, err
    assert "AES-128-CBC" in out
