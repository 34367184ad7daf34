"""A ping flood through a lab router against the truth: one request in flight at a time,
each 1,400-byte request waits for the 10 Mbit/s link to carry the one before it, so the
flood runs at the link's frame rate for that size, 852.6 a second.

The lab shapes every port with a token bucket (lab/shaping.py) that counts each frame's
Ethernet header and framing: 1,400 bytes of data are 1,428 of IP and 1,466 on the wire.
A small request's frame is carried 12 times faster, so the small flood is held back
by the hosts, not the link; it runs on every topology of traffic, through the NAT too
(whose connection tracking keeps each echo's reply). No server runs: the far end's
kernel answers. The figures are measurements like a benchmark's: the stored run, every
report format, `compare` and `expect:` take them with nothing written for this kind.
"""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path

import pytest
from lab_runs import WIRESPEED, namespaces_of, unique_prefix

from wirespeed.model import Side, TrialStatus
from wirespeed.search.frames import MAC_HEADER_AND_FCS, frames_per_second
from wirespeed.store import Store
from wirespeed.tools.ping_flood import IP_AND_ICMP_HEADERS

pytestmark = [pytest.mark.root, pytest.mark.slow]

RATE = 10_000_000
SIZE = 1400


def link_frame_rate() -> float:
    return frames_per_second(RATE, SIZE + IP_AND_ICMP_HEADERS + MAC_HEADER_AND_FCS)


PLAN = f"""
    lab: {{link: 10mbit}}
    paths:
      - {{name: router, topology: router}}
      - {{name: nat, topology: nat}}
      - {{name: bridge, topology: bridge}}
      - {{name: endpoint, topology: endpoint}}
    tests:
      - id: big
        tool: ping-flood
        paths: [router]
        options: {{duration: 3, size: {SIZE}}}
        expect: {{flood rate: ">= 2000"}}   # not met: exit 5
      - id: small
        tool: ping-flood
        options: {{duration: 2}}
        expect: {{flood loss: "< 1 %", flood rtt: {{stat: min, value: "< 5 ms"}}}}
"""


def _wirespeed(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*WIRESPEED, *args], capture_output=True, text=True, timeout=180, check=False
    )


def test_a_ping_flood_runs_at_the_links_frame_rate(tmp_path: Path) -> None:
    plan = tmp_path / "flood.yaml"
    plan.write_text(textwrap.dedent(PLAN))
    db = str(tmp_path / "runs.db")
    prefix = unique_prefix("pf")
    try:
        done = _wirespeed("run", str(plan), "--db", db, "--lab-name", prefix)
    finally:
        for path in ("router", "nat", "bridge", "endpoint"):
            _wirespeed("lab", "down", f"{prefix}-{path}")
    assert namespaces_of(prefix) == []
    # Every trial ran; the big flood's expectation was not met: exit 5, said.
    assert done.returncode == 5, done.stderr
    assert "flood rate" in done.stderr and "not met" in done.stderr

    with Store.open(db, read_only=True) as store:
        record = store.load_run(None)
    figures = {}
    for outcome in record.outcomes:
        assert outcome.status is TrialStatus.OK, outcome.reason
        assert outcome.result is not None
        # The client alone: nothing was started at the far end.
        assert [raw.side for raw in outcome.raw] == [Side.CLIENT]
        assert outcome.raw[0].argv[:2] == ("ping", "-f")
        place = (outcome.trial.test.id, outcome.trial.path.name)
        figures[place] = {m.item: m.value for m in outcome.result.measurements}
    assert sorted(figures) == [
        ("big", "router"),
        ("small", "bridge"),
        ("small", "endpoint"),
        ("small", "nat"),
        ("small", "router"),
    ]
    truth = link_frame_rate()
    big = figures["big", "router"]
    # A busy core can only slow the flood (a reply read late); nothing lets it pass the link.
    assert truth * 0.8 < big["flood rate"] < truth * 1.03, (truth, big)
    assert big["flood rtt mean"] == pytest.approx(1000 / truth, rel=0.25)
    assert big["flood loss"] == 0.0  # the request in flight at the deadline is not lost
    for (test, path), small in figures.items():
        if test == "small":
            assert small["flood rate"] > 3 * truth, path
            assert small["flood rtt min"] <= small["flood rtt mean"] <= small["flood rtt max"]

    run = str(record.id)
    as_json = json.loads(_wirespeed("report", run, "--db", db, "--format", "json").stdout)
    items = {(m["test_id"], m["item"]) for m in as_json["measured"]}
    assert ("big", "flood rate") in items and ("small", "flood rtt mean") in items
    judged = {(e["place"], e["verdict"]) for e in as_json["measured_expectations"]}
    assert judged == {
        ("big/router/default", "not met"),
        *((f"small/{path}/default", "met") for path in ("router", "nat", "bridge", "endpoint")),
    }
    markdown = _wirespeed("report", run, "--db", db, "--format", "markdown").stdout
    assert "| big flood rate ↑ |" in markdown
    compared = _wirespeed("compare", run, run, "--db", db)
    assert compared.returncode == 0, compared.stderr
    assert "small flood rtt min" in compared.stdout
