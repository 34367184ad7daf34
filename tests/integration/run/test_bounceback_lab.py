"""iperf2's bounceback through a lab router against the truth: a 12,000-byte message
across a 10 Mbit/s link takes its serialization time each way.

The lab shapes every port with a token bucket (lab/shaping.py): a message of 9 TCP
segments is 12,810 bytes on the wire (each segment with its TCP/IP headers, Ethernet
header and framing), of which the bucket's burst passes at once and the rest at the
line rate; the next hops forward it as it arrives. Both ways, that is the round trip
(about 15.6 ms here), against 0.1 ms for a 100-byte message that the burst carries.
The figures are measurements like a benchmark's: the stored run, every report format,
`compare` and `expect:` take them with nothing written for this kind.
"""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path

import pytest
from lab_runs import WIRESPEED, namespaces_of, unique_prefix

from wirespeed.lab.shaping import ETHERNET_HEADER, FRAMING_OVERHEAD, tbf_params
from wirespeed.model import Side, TrialStatus
from wirespeed.store import Store

pytestmark = [pytest.mark.root, pytest.mark.slow]

RATE = 10_000_000
SIZE = 12_000
MSS = 1448  # MTU 1500 less IP and TCP headers with timestamps
TCP_IP_HEADERS = 52


def serialization_round_trip_ms() -> float:
    segments = -(-SIZE // MSS)
    wire = SIZE + segments * (TCP_IP_HEADERS + ETHERNET_HEADER + FRAMING_OVERHEAD)
    burst = tbf_params(RATE, 1500).burst_bytes
    return 2 * (wire - burst) * 8 / RATE * 1000


PLAN = f"""
    lab: {{link: 10mbit}}
    paths: [{{name: router, topology: router}}]
    tests:
      - id: big
        tool: bounceback
        options: {{duration: 3, size: {SIZE}}}
        expect: {{bounceback rtt: {{stat: min, value: "< 5 ms"}}}}   # not met: exit 5
      - id: small
        tool: bounceback
        options: {{duration: 2}}
        expect: {{bounceback rtt: {{stat: min, value: "< 5 ms"}}}}
"""


def _wirespeed(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*WIRESPEED, *args], capture_output=True, text=True, timeout=180, check=False
    )


def test_a_bounceback_round_trip_is_the_links_serialization_both_ways(tmp_path: Path) -> None:
    plan = tmp_path / "bounceback.yaml"
    plan.write_text(textwrap.dedent(PLAN))
    db = str(tmp_path / "runs.db")
    prefix = unique_prefix("bb")
    try:
        done = _wirespeed("run", str(plan), "--db", db, "--lab-name", prefix)
    finally:
        _wirespeed("lab", "down", f"{prefix}-router")
    assert namespaces_of(prefix) == []
    # Every trial ran; the big message's expectation was not met: exit 5, said.
    assert done.returncode == 5, done.stderr
    assert "bounceback rtt" in done.stderr and "not met" in done.stderr

    with Store.open(db, read_only=True) as store:
        record = store.load_run(None)
    figures = {}
    for outcome in record.outcomes:
        assert outcome.status is TrialStatus.OK, outcome.reason
        assert outcome.result is not None
        assert [raw.side for raw in outcome.raw] == [Side.CLIENT, Side.SERVER]
        assert "--bounceback" in outcome.raw[0].argv
        figures[outcome.trial.test.id] = {m.item: m.value for m in outcome.result.measurements}
    truth = serialization_round_trip_ms()
    big = figures["big"]
    # The fastest of the exchanges is the link's own time; the mean may meet a busy core.
    assert truth * 0.9 < big["bounceback rtt min"] < truth * 1.2, (truth, big)
    assert big["bounceback rtt min"] <= big["bounceback rtt mean"] < truth * 2
    assert big["bounceback rtt mean"] <= big["bounceback rtt max"]
    assert figures["small"]["bounceback rtt min"] < 2.0

    run = str(record.id)
    as_json = json.loads(_wirespeed("report", run, "--db", db, "--format", "json").stdout)
    items = {(m["test_id"], m["item"]) for m in as_json["measured"]}
    assert ("big", "bounceback rtt min") in items and ("small", "bounceback rtt mean") in items
    judged = {(e["place"], e["verdict"]) for e in as_json["measured_expectations"]}
    assert judged == {("big/router/default", "not met"), ("small/router/default", "met")}
    markdown = _wirespeed("report", run, "--db", db, "--format", "markdown").stdout
    assert "| big bounceback rtt min ↓ |" in markdown
    html = _wirespeed("report", run, "--db", db, "--format", "html").stdout
    assert "small bounceback rtt mean" in html
    compared = _wirespeed("compare", run, run, "--db", db)
    assert compared.returncode == 0, compared.stderr
    assert "big bounceback rtt min" in compared.stdout
