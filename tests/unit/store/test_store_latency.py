"""A probed trial comes back from a real SQLite store whole: its latency measurements
beside its flows, its probes' raw outputs, its finding, and the spec's probes, its
congestion control and the path's queue; and the report shows the grade's letter."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from store_samples import INFO, dual_outcome

from wirespeed.analysis.latency import latency_measurements
from wirespeed.lab.links import parse_link
from wirespeed.model import Finding, FindingKind, Probes, RawOutput, Side, TrialOutcome
from wirespeed.report.measure_text import value_text
from wirespeed.store import RunStatus, Store
from wirespeed.tools import irtt

FIXTURES = Path(__file__).parents[2] / "fixtures" / "latency"


def probed_outcome() -> TrialOutcome:
    idle_text = (FIXTURES / "irtt-idle-router-100mbit.json").read_text()
    loaded_text = (FIXTURES / "irtt-loaded-router-100mbit-queue-40ms.json").read_text()
    latency = latency_measurements(irtt.parse(idle_text), irtt.parse(loaded_text))
    outcome = dual_outcome()
    test = outcome.trial.test
    spec = dataclasses.replace(test.spec, probes=Probes.IRTT, congestion="cubic")
    path = dataclasses.replace(outcome.trial.path, link=parse_link("100mbit", queue=0.04))
    trial = dataclasses.replace(outcome.trial, test=dataclasses.replace(test, spec=spec), path=path)
    assert outcome.result is not None
    probes = tuple(
        RawOutput("ws", Side.PROBE, ("irtt", "client"), "json", text, exit_status=0)
        for text in (idle_text, loaded_text)
    )
    return dataclasses.replace(
        outcome,
        trial=trial,
        result=dataclasses.replace(outcome.result, measurements=latency),
        raw=(*outcome.raw, *probes),
        findings=(Finding(FindingKind.PROBES, "irtt not found on r4s: latency by ping"),),
    )


def test_a_probed_trial_comes_back_equal_from_sqlite(tmp_path: Path) -> None:
    outcome = probed_outcome()
    url = str(tmp_path / "runs.db")
    with Store.open(url) as store:
        run_id = store.begin_run(INFO)
        store.add_outcome(run_id, outcome)
        store.finish_run(run_id, RunStatus.COMPLETE, finished_at=1607546010.0)
    with Store.open(url) as store:
        (back,) = store.load_run(run_id).outcomes
    assert back == outcome
    assert back.trial.test.spec.probes is Probes.IRTT
    assert back.trial.path.link is not None and back.trial.path.link.queue == 0.04
    assert back.result is not None
    figures = {m.item: m for m in back.result.measured()}
    # The flows' figures and the probes' together.
    assert {"goodput up", "goodput down", "rtt loaded, p50"} <= set(figures)
    grade = figures["bufferbloat grade"]
    assert value_text(grade.value, grade.unit).startswith("B (")


def test_the_html_report_draws_the_probes_round_trips_idle_and_loaded(tmp_path: Path) -> None:
    from wirespeed.report.html_latency import latency_section

    outcome = probed_outcome()
    url = str(tmp_path / "runs.db")
    with Store.open(url) as store:
        run_id = store.begin_run(INFO)
        store.add_outcome(run_id, outcome)
    with Store.open(url) as store:
        (back,) = store.load_run(run_id).outcomes
        (bare,) = store.load_run(run_id, outputs=False).outcomes
    section = latency_section([back])
    assert section.count("<polyline") == 2
    assert "idle (99 probes, irtt)" in section and "loaded (150 probes, irtt)" in section
    # The loaded curve reaches the queue's 40 ms: the axis ends just beyond it.
    assert ">round trip, ms<" in section
    # Without the outputs there is nothing to draw, and no section.
    assert latency_section([bare]) == ""


def test_every_format_has_the_latency_at_a_glance_and_the_html_its_time_series(
    tmp_path: Path,
) -> None:
    import csv
    import io
    import json

    from support.run_report import render_markdown
    from wirespeed.report.html_latency import latency_section, timeline
    from wirespeed.report.model import build_report
    from wirespeed.report.run_csv import render_csv
    from wirespeed.report.run_json import render_json

    outcome = probed_outcome()
    # The probers' own argv, as the trial ran them: the phase's length is in it.
    from wirespeed.tools.probing import loaded_window

    duration = outcome.trial.test.spec.duration
    warmup, loaded_seconds = loaded_window(duration)
    lengths = iter((1.0, loaded_seconds))  # the idle capture's 99 probes, 10 ms apart
    raw = tuple(
        dataclasses.replace(r, argv=tuple(irtt.client_argv("198.19.1.2", next(lengths))))
        if r.side is Side.PROBE
        else r
        for r in outcome.raw
    )
    outcome = dataclasses.replace(outcome, raw=raw)
    url = str(tmp_path / "runs.db")
    with Store.open(url) as store:
        run_id = store.begin_run(INFO)
        store.add_outcome(run_id, outcome)
        store.finish_run(run_id, RunStatus.COMPLETE, finished_at=1607546010.0)
    with Store.open(url) as store:
        record = store.load_run(run_id)
    report = build_report(record)

    table = render_markdown(report)
    lead = table.index("| Latency | idle p50 | loaded p50 | loaded p99 | increase | grade |")
    line = table[lead:].splitlines()[2]
    assert line.startswith("| #4 ") and line.count(" ms |") == 4 and line.endswith(" ms) |")
    assert "| B (" in line

    rows = list(csv.DictReader(io.StringIO(render_csv(report))))
    flows = [row for row in rows if row["flow"] in ("up", "down")]
    assert flows and all(row["bufferbloat_grade"] == "B" for row in flows)
    assert all(30 < float(row["rtt_loaded_p50_ms"]) < 45 for row in flows)
    assert all(float(row["rtt_idle_p50_ms"]) < 1 for row in flows)

    (trial,) = json.loads(render_json(report))["trials"]
    assert trial["latency"]["bufferbloat_grade"] == "B"
    assert trial["latency"]["latency_increase_ms"] > 30

    (back,) = record.outcomes
    (idle, loaded) = timeline(back)
    assert idle[0] == "idle" and loaded[0] == "loaded"
    # The idle phase from 0 s, the loaded one after it and the load's warmup; in order.
    assert idle[1][0][0] == 0.0 and idle[1][-1][0] < 1.0
    assert loaded[1][0][0] == 3.0 + warmup and loaded[1][-1][0] < 3.0 + duration
    assert [t for t, _ in loaded[1]] == sorted(t for t, _ in loaded[1])
    assert max(ms for _, ms in loaded[1]) > 30 > max(ms for _, ms in idle[1])
    section = latency_section([back])
    assert "round trips over time" in section and ">time, s<" in section
    assert section.count("<polyline") == 4  # two phases, over time and as a CDF
