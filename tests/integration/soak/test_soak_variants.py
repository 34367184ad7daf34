"""A soak plan with `variants:` soaks once per variant in one lab, each variant's state
in force for its whole soak and undone after it, and compares them; killed between two
variants, `--resume` of the finished one begins the next. Its `expect:` gates every
variant's soak: exit status 5 when one is missed (an injected outage is one), 0 when
all are met."""

from __future__ import annotations

import json
import subprocess
import threading
from pathlib import Path

import pytest

from support.cli import run_cli
from wirespeed.lab.naming import namespace_name
from wirespeed.model import Role
from wirespeed.soak import records
from wirespeed.soak.render import summary_of
from wirespeed.store import Store

pytestmark = [pytest.mark.root, pytest.mark.slow]

PLAN = """title: MTU soak
lab: {link: gbe}
path: {name: R, topology: router}
soak:
  duration: 10s
  chunk: 5s
  faults: [{at: 3s, down: 1s, kind: link}]
variants:
  - {name: small, mtu: 1500}
  - {name: jumbo, mtu: 9000}
expect:
"""
# Each soak has its injected outage of 1 s: more than none, less than 5 s.
MISSED = '  outages: "<= 0"\n  longest outage: "<= 5 s"\n'
MET = '  longest outage: "<= 5 s"\n'


class MtuWatch:
    """The lab DUT's wan MTU, read every 0.2 s while the soak runs."""

    def __init__(self, lab: str) -> None:
        self.namespace = namespace_name(lab, Role.DUT)
        self.seen: list[int] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(0.2):
            said = subprocess.run(
                ["ip", "-n", self.namespace, "-j", "link", "show", "wan"],
                capture_output=True, text=True, check=False,
            )  # fmt: skip
            if said.returncode == 0 and said.stdout.strip():
                self.seen.append(int(json.loads(said.stdout)[0]["mtu"]))

    def __enter__(self) -> MtuWatch:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()


def test_each_variant_soaks_in_its_own_state_and_the_soaks_are_compared(
    tmp_path: Path, lab_name: str
) -> None:
    plan = tmp_path / "variants.yaml"
    plan.write_text(PLAN + MISSED)
    db = tmp_path / "soak.db"
    with MtuWatch(lab_name) as watch:
        status, out, err = run_cli(
            "soak", str(plan), "--db", str(db), "--lab-name", lab_name,
            "-o", str(tmp_path / "soak.md"),
        )  # fmt: skip

    # Every figure measured; the outages, one each, are more than the plan expects.
    assert status == 5, err
    assert "2 of 4 expectations not met: outages <= 0 on soak 1 (outages), measured 1" in err
    # -o FILE: each variant's report beside it, named by its variant; FILE the comparison.
    small, jumbo = (
        (tmp_path / "soak-small.md").read_text(),
        (tmp_path / "soak-jumbo.md").read_text(),
    )
    assert small.startswith("# MTU soak, variant small\n"), small
    assert jumbo.startswith("# MTU soak, variant jumbo\n"), jumbo
    assert "\n  soak 1, variant small (complete)\n" in out
    assert "\n  soak 2, variant jumbo (complete)\n" in out
    assert "| Measurement | soak 1 | soak 2 |" in (tmp_path / "soak.md").read_text()
    assert f"wrote {tmp_path / 'soak-small.md'}" in err
    # Both states were in force, one after the other; the lab went with the soak.
    assert 1500 in watch.seen and 9000 in watch.seen
    assert watch.seen.index(9000) > watch.seen.index(1500)
    with Store.open(db) as store:
        soaks = records.list_soaks(store)
        summaries = [summary_of(store, soak.id) for soak in soaks]
    assert [soak.info["variant"] for soak in soaks] == ["small", "jumbo"]
    assert soaks[0].info["group"] == soaks[1].info["group"]
    for found in summaries:
        assert found is not None and found.header.status == "complete"
        # The truth: each soak's one injected outage, 1 s long, and no other.
        [fault] = found.faults
        [hit] = [m for m in found.matched if abs(m.outage.start - float(fault["start"])) < 1]
        assert hit.outage.duration == pytest.approx(1.0, abs=0.1)
        assert hit.cause is not None and hit.cause.injected
    assert "soak 1: 10 s of probes in variant small (2 variants)" in err
    assert "soak 2: 10 s of probes in variant jumbo (2 variants)" in err
    # The comparison closes the run, the first variant the baseline.
    assert "2 soaks compared" in out and "soak 2: jumbo, " in out

    status, out, err = run_cli("compare", "--soaks", "--db", str(db), "--format", "json")
    assert status == 0, err
    compared = json.loads(out)
    labels = [column["label"].split(",")[0] for column in compared["columns"]]
    assert labels == ["soak 1: small", "soak 2: jumbo"]
    per_hour = next(row for row in compared["rows"] if row["name"] == "outages per hour")
    first, second = per_hour["cells"]
    assert second["p_value"] is not None and first["p_value"] is None
    # One outage in about 10 s each (another only if the shared machine dropped).
    assert all(cell["summary"]["median"] >= 3600 / 11 for cell in (first, second))


def test_resuming_a_finished_variant_begins_the_next(tmp_path: Path, lab_name: str) -> None:
    # A process killed between two variants leaves the first complete, the second not
    # begun: the state a store has after the first variant's soak alone.
    plan = tmp_path / "variants.yaml"
    text = PLAN.replace("duration: 10s", "duration: 5s").replace("at: 3s", "at: 2s") + MET
    plan.write_text(text)
    db = tmp_path / "soak.db"
    with Store.open(db) as store:
        first = records.begin(
            store, "MTU soak", plan.read_text(), lab_name,
            {"group": "g1", "variant": "small", "variants": ["small", "jumbo"]},
        )  # fmt: skip
        records.set_status(store, first, "complete")

    with MtuWatch(lab_name) as watch:
        status, out, err = run_cli("soak", "--resume", str(first), "--db", str(db))

    assert status == 0, err  # the expectation kept with the variant's soak is met
    assert "all 1 expectations met" in err
    assert 9000 in watch.seen
    assert "soak 2: 5 s of probes in variant jumbo" in err
    assert "2 soaks compared" in out  # the group compared, now that both are done
    with Store.open(db) as store:
        soaks = records.list_soaks(store)
    assert [(soak.info["variant"], soak.status) for soak in soaks] == [
        ("small", "complete"),
        ("jumbo", "complete"),
    ]
    assert soaks[1].info["group"] == "g1"
    status, _, err = run_cli("soak", "--resume", str(soaks[1].id), "--db", str(db))
    assert status == 2 and "is complete" in err
