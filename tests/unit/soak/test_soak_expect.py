"""`expect:` in a soak plan: its figures named as a run plan names a measurement, each
problem at its line, and judged on what the soak measured, as the plan said when the
soak began."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from support.soak_samples import captured_summary
from wirespeed.analysis.expectations import Verdict
from wirespeed.cli.document_output import document_text
from wirespeed.errors import UsageError
from wirespeed.expectations import TestExpectations, encode
from wirespeed.report.text import markdown_text
from wirespeed.soak.measurements import SOAK_TEST, judge
from wirespeed.soak.plan import parse_soak_plan
from wirespeed.soak.render import soak_result
from wirespeed.soak.summary import SoakSummary

PLAN = """lab: {link: gbe}
path: {name: R, topology: router}
soak: {duration: 1h}
expect:
"""


def test_a_soak_plan_expects_its_figures_by_name() -> None:
    plan = parse_soak_plan(
        PLAN + '  outages per hour: "<= 0.5"\n  longest outage: "< 1500 ms"\n  rtt p99: "<= 5 ms"\n'
    )
    per_hour, longest, rtt = plan.expectations
    assert (per_hour.name, per_hour.unit, per_hour.value) == ("outages per hour", "/h", 0.5)
    assert (longest.unit, longest.value) == ("s", 1.5)
    assert per_hour.text == "outages per hour <= 0.5 per hour"
    assert rtt.text == "rtt p99 <= 5 ms"


@pytest.mark.parametrize(
    ("written", "said"),
    [
        ('  outage per hour: "<= 1"', r"p.yaml:5:3: unknown measurement 'outage per hour' "
         r"\(did you mean 'outages per hour'\?\)"),
        ("  outages: 0", r"p.yaml:5:12: outages: expected a comparison"),
        ('  longest outage: "<= 2 MB/s"', r"p.yaml:5:19: longest outage: .* not in longest "
         r"outage's unit: it is seconds"),
        ('  rtt p99: {value: "<= 5 ms"}', r"p.yaml:5:12: rtt p99: a soak's figures have no "
         r"labels"),
        ("  - outages", r"p.yaml:5:3: expect: expected a mapping"),
    ],
)  # fmt: skip
def test_a_bad_expectation_is_refused_at_its_line(written: str, said: str) -> None:
    with pytest.raises(UsageError, match=said):
        parse_soak_plan(PLAN + written + "\n", "p.yaml")


def _expecting(summary: SoakSummary, text: str) -> SoakSummary:
    expected = parse_soak_plan(PLAN + text).expectations
    info = {"expectations": encode({SOAK_TEST: TestExpectations(everywhere=expected)})}
    return replace(summary, header=replace(summary.header, info=info))


def test_a_soak_is_judged_on_what_its_plan_expected() -> None:
    # The captured chunk: one outage of 0.520 s (51 probes, 10 ms apart; the fault's
    # truth 0.509 s), the round trip's median 0.172 ms.
    found = captured_summary()
    judged = judge(
        _expecting(
            found,
            '  outages: "<= 0"\n'
            '  longest outage: "<= 0.53 s"\n'
            '  median outage: "<= 0.51 s"\n'
            '  rtt p50: "<= 0.18 ms"\n',
        )
    )
    verdicts = {j.expectation.name: (j.verdict, j.measured, j.n) for j in judged}
    assert verdicts["outages"] == (Verdict.NOT_MET, 1, 1)
    assert verdicts["longest outage"][0] is Verdict.MET
    assert verdicts["median outage"][0] is Verdict.NOT_MET
    for name in ("longest outage", "median outage"):
        assert verdicts[name][1] == pytest.approx(0.5198, abs=1e-4)
    assert verdicts["rtt p50"] == (Verdict.MET, 0.172453, 1)
    # Each threshold the other side of its figure flips its verdict.
    flipped = judge(
        _expecting(
            found,
            '  outages: "<= 1"\n'
            '  longest outage: "<= 0.51 s"\n'
            '  median outage: "<= 0.53 s"\n'
            '  rtt p50: "<= 0.17 ms"\n',
        )
    )
    assert [j.verdict for j in flipped] == [
        Verdict.MET, Verdict.NOT_MET, Verdict.MET, Verdict.NOT_MET,
    ]  # fmt: skip
    assert {j.place for j in judged} == {"soak 1"}
    # A soak without an outage has no median outage: not measured, which no gate passes.
    quiet = replace(found, matched=())
    [median] = judge(_expecting(quiet, '  median outage: "<= 10 s"\n'))
    assert median.verdict is Verdict.NOT_MEASURED
    assert judge(quiet) == ()  # nothing expected


def test_a_soak_s_report_says_what_was_expected() -> None:
    found = _expecting(captured_summary(), '  outages: "<= 0"\n')
    document = soak_result(found)
    said = "outages <= 0: measured 1, not met"
    assert f"\nExpected\n  {said}\n" in document_text(document, "terminal")
    assert f"## Expected\n\n- {markdown_text(said)}\n" in document_text(document, "markdown")
    assert f'<section class="card" id="expected"><h2>Expected</h2><ul><li>{said}' in (
        document_text(document, "html").replace("&lt;", "<")
    )
    data = json.loads(document_text(document, "json"))
    [judged] = data["expectations"]
    assert (judged["measurement"], judged["measured"], judged["verdict"]) == (
        "outages",
        1,
        "not met",
    )
    by_name = {m["name"]: m for m in data["measurements"]}
    assert by_name["outages per hour"]["unit"] == "/h"
    assert by_name["rtt p99"]["value"] == found.chunks[0]["rtt_p99_ms"]
    assert {m["better"] for m in data["measurements"]} == {"lower"}
