"""A failed connection is explained by what was asked: iperf2's `-d` and NAT only where
the test was a dual one (its server must connect back to the client); a plain TCP test
that could not connect on a router path is told nothing of either."""

from __future__ import annotations

from pathlib import Path

from support.run_report import render_markdown
from support.samples import run_record
from wirespeed.model import (
    Direction,
    RawOutput,
    Side,
    TestSpec,
    Trial,
    TrialOutcome,
    TrialStatus,
    WarningKind,
)
from wirespeed.plan import expand, parse_plan
from wirespeed.report import build_report
from wirespeed.run.iperf_results import parse_ends
from wirespeed.tools import iperf2

FIXTURES = Path(__file__).parents[2] / "fixtures" / "iperf2"
PLAN = """
title: a router nobody routes through
lab: {link: gbe}
paths:
  - {name: routed, topology: router}
defaults: {tool: iperf2, duration: 2}
tests:
  - {id: tcp, protocol: tcp}
  - {id: dual, protocol: tcp, direction: dual}
"""


def raw(name: str, side: Side) -> RawOutput:
    text = (FIXTURES / name).read_text()
    return RawOutput(host=side.value, side=side, argv=("iperf",), format="text", text=text)


def _failed(trial: Trial, outputs: list[RawOutput]) -> TrialOutcome:
    """The trial as the runner ends it: the outputs parsed, failed with the reason."""
    result, reason = parse_ends(iperf2, outputs, trial.test.spec)
    assert reason is not None
    return TrialOutcome(trial, TrialStatus.FAILED, 0.0, 1.0, result=result, reason=reason)


def _trials() -> dict[str, Trial]:
    return {t.test.id: t for t in expand(parse_plan(PLAN))}


def test_a_refused_tcp_connect_on_a_router_path_says_nothing_of_dual_or_nat() -> None:
    trial = _trials()["tcp"]
    outcome = _failed(trial, [raw("err-refused.client.txt", Side.CLIENT)])
    assert outcome.result is not None
    assert WarningKind.CONNECT_FAILED in {w.kind for w in outcome.result.warnings}
    report = build_report(run_record(outcome))
    texts = [f"{n.text} {' '.join(n.details)}" for n in report.notes]
    assert any("connect failed: Connection refused" in t for t in texts), texts
    for text in texts:
        assert "-d" not in text and "NAT" not in text, text
    assert "NAT" not in render_markdown(report)


def test_a_dual_test_whose_server_never_connected_back_names_d_and_nat() -> None:
    trial = _trials()["dual"]
    # The client's -d listener heard nothing back: its own flow only.
    outcome = _failed(
        trial,
        [raw("tcp-up.client.txt", Side.CLIENT), raw("tcp-up.server.txt", Side.SERVER)],
    )
    assert outcome.reason is not None and "iperf2 -d" in outcome.reason
    report = build_report(run_record(outcome))
    assert any("NAT" in n.text for n in report.notes)


def test_a_missing_direction_of_a_test_that_is_not_dual_blames_no_nat() -> None:
    spec = TestSpec(duration=2, direction=Direction.DOWN)
    outputs = [raw("tcp-up.client.txt", Side.CLIENT), raw("tcp-up.server.txt", Side.SERVER)]
    _, reason = parse_ends(iperf2, outputs, spec)
    assert reason is not None and "no measurement of the down direction" in reason
    assert "-d" not in reason and "NAT" not in reason
