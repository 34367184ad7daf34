"""A lab run with a power meter, reported: the HTML page's "Device over time" draws the
meter's readings and shades the traffic it marked, in Chromium; the JSON and Markdown
reports carry the trial's power summary."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from lab_runs import namespaces_of

from support.cli import run_cli

pytestmark = [pytest.mark.root, pytest.mark.slow]

METER = Path(__file__).resolve().parents[2] / "fixtures" / "meters" / "lab-meter.sh"
PLAN = """
title: lab power over time
lab: {{link: gbe}}
power: {{meter: "sh {meter} {prefix}", interval: 0.5, idle: 2}}
paths:
  - {{name: Br0, topology: bridge}}
defaults: {{tool: iperf3, duration: 3}}
tests:
  - {{id: "1", name: TCP}}
"""


def test_a_meters_run_has_a_device_timeline_and_a_power_summary(tmp_path: Path) -> None:
    prefix = f"timeline-m{os.getpid() % 100000}"
    plan = tmp_path / "plan.yaml"
    plan.write_text(PLAN.format(meter=METER, prefix=prefix))
    db, page = str(tmp_path / "runs.db"), tmp_path / "run.html"
    status, _, err = run_cli("run", str(plan), "--db", db, "--lab-name", prefix)
    assert status == 0, err
    assert namespaces_of(prefix) == []
    md, js = tmp_path / "run.md", tmp_path / "run.json"
    status, _, err = run_cli("report", "--db", db, "-o", str(page), "-o", str(md), "-o", str(js))
    assert status == 0, err

    (trial,) = json.loads(js.read_text())["trials"]
    summary = trial["power_summary"]
    assert summary["source"] == "meter" and summary["idle_w"] == pytest.approx(2.2)
    assert 2.2 < summary["load_w"] <= 5.0
    assert "### Power and temperature" in md.read_text()

    from browser.chromium_cdp import chromium, chromium_path

    executable = chromium_path()
    if executable is None:
        pytest.skip("chromium is not installed (Debian: apt-get install chromium)")
    with chromium(executable) as browser:
        tab = browser.open(page.as_uri())
        assert tab.wait_for(
            "!!document.querySelector('#device-timeline figure[data-ready=true] svg')"
        )
        lanes = tab.evaluate(
            "Array.from(document.querySelectorAll('#device-timeline .ws-tl-lane'))"
            ".map(function (g) { return g.getAttribute('data-title'); })"
        )
        assert lanes == ["throughput", "power"]
        spans = tab.evaluate(
            "Array.from(document.querySelectorAll('#device-timeline rect.ws-tl-span title'))"
            ".map(function (t) { return t.textContent; })"
        )
        assert spans == ["traffic"]
        errors = [e for e in tab.events if e["method"] == "Runtime.exceptionThrown"]
        assert errors == []
