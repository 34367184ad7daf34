"""The A/B table: variants side by side, each measurement against the first variant's at
the same MTU, judged as `compare` judges runs."""

from __future__ import annotations

import dataclasses
import io

from report_samples import BR0, DUAL, TCP, ok, sample_record, tcp_direction
from rich.console import Console

from support.run_report import render_markdown, render_terminal
from wirespeed.analysis.compare_many import Verdict
from wirespeed.model import TestCase, TrialOutcome
from wirespeed.report import build_report
from wirespeed.report.ab import build_ab
from wirespeed.store.records import RunRecord

# The seed's NanoPi R4S table, as variants: MTU 1500 and 512, default and tuned.
STATES = {
    "default": {},
    "tuned": {"rps": "spread"},
    "mtu512": {"mtu": 512},
    "mtu512-tuned": {"mtu": 512, "rps": "spread"},
}
MBIT = {"default": 941.0, "tuned": 941.0, "mtu512": 610.0, "mtu512-tuned": 840.0}


def outcome(variant: str, repetition: int, mbit: float, test: TestCase = TCP) -> TrialOutcome:
    directions = [tcp_direction(flow, mbit) for flow in test.spec.flows]
    done = ok(test, BR0, *directions, repetition=repetition)
    return dataclasses.replace(
        done, trial=dataclasses.replace(done.trial, variant=variant, repetition=repetition)
    )


def record(repetitions: int, jitter: tuple[float, ...] = (0.0, 0.4, -0.3, 0.2, -0.1)) -> RunRecord:
    outcomes = [
        outcome(variant, rep, MBIT[variant] + jitter[rep - 1])
        for rep in range(1, repetitions + 1)
        for variant in STATES
    ]
    base = sample_record()
    info = dataclasses.replace(base.info, provenance={"variants": STATES})
    return dataclasses.replace(base, info=info, outcomes=tuple(outcomes))


def terminal(run: RunRecord) -> str:
    out = io.StringIO()
    render_terminal(build_report(run), Console(file=out, width=160, color_system=None))
    return out.getvalue()


def test_variants_that_differ_in_mtu_share_columns_and_mtu_becomes_a_row() -> None:
    ab = build_ab(build_report(record(5)))
    assert ab is not None
    assert ab.variants == ("default", "tuned")
    assert ab.by_mtu
    goodput = [row for row in ab.rows if row.name == "goodput"]
    assert [(row.test_id, row.item) for row in goodput] == [
        ("#1", "goodput up, MTU 1500"),
        ("#1", "goodput up, MTU 512"),
    ]
    tuned = goodput[1].cells[1]
    assert tuned is not None and tuned.ratio is not None
    assert round((tuned.ratio - 1) * 100, 1) == 37.7  # 840 / 610
    assert tuned.verdict is Verdict.SIGNIFICANT


def test_five_repetitions_get_a_spread_and_a_verdict() -> None:
    text = terminal(record(5))
    assert "Variants against default at each MTU" in text
    assert "+37.7 %*" in text
    assert "+0.0 %~" in text


def test_single_repetitions_are_marked_not_judged() -> None:
    text = terminal(record(1))
    assert "+37.7 %" in text and "+37.7 %*" not in text and "+37.7 %~" not in text
    # Three a side cannot reach p < 0.05 whatever the values: never "significant".
    assert "+37.7 %~" in terminal(record(3))


def test_markdown_has_the_same_table() -> None:
    text = render_markdown(build_report(record(5)))
    assert "## Variants against default at each MTU" in text
    assert "| Measurement | default | tuned |" in text
    row = next(line for line in text.splitlines() if "goodput up, MTU 512" in line)
    assert row.endswith("| 610.0 ±0.4 Mbit/s | 840.0 ±0.4 Mbit/s<br>+37.7 %* |")


def test_without_mtu_in_the_variants_each_variant_is_a_column_and_flows_are_rows() -> None:
    states = {"default": {}, "no-offloads": {"offloads": {"gro": "off"}}}
    outcomes = [
        outcome(variant, rep, mbit + rep, test=DUAL)
        for rep in (1, 2, 3)
        for variant, mbit in (("default", 900.0), ("no-offloads", 700.0))
    ]
    base = sample_record()
    run = dataclasses.replace(
        base,
        info=dataclasses.replace(base.info, provenance={"variants": states}),
        outcomes=tuple(outcomes),
    )
    ab = build_ab(build_report(run))
    assert ab is not None and not ab.by_mtu
    assert ab.variants == ("default", "no-offloads")
    assert [row.item for row in ab.rows if row.name == "goodput"] == [
        "goodput up",
        "goodput down",
    ]


def test_a_run_with_one_variant_has_no_ab_table() -> None:
    report = build_report(sample_record())
    assert build_ab(report) is None
    assert "Variants against" not in render_markdown(report)


def at_variant_mtu(run: RunRecord) -> RunRecord:
    """The trials as a run stores them: a variant's MTU is in each trial's spec (expand)."""
    variant_mtu = {"mtu512": 512, "mtu512-tuned": 512}
    outcomes = []
    for done in run.outcomes:
        mtu = variant_mtu.get(done.trial.variant)
        test = done.trial.test
        if mtu is not None:
            test = dataclasses.replace(test, spec=dataclasses.replace(test.spec, mtu=mtu))
        outcomes.append(dataclasses.replace(done, trial=dataclasses.replace(done.trial, test=test)))
    return dataclasses.replace(run, outcomes=tuple(outcomes))


def test_a_variants_columns_and_path_list_give_the_mtu_its_trials_ran_at() -> None:
    run = at_variant_mtu(record(1))
    report = build_report(run)
    assert {c.variant: c.link.mtu for c in report.columns if c.link} == {
        "default": 1500,
        "tuned": 1500,
        "mtu512": 512,
        "mtu512-tuned": 512,
    }
    text = terminal(run)
    assert "Br0 (mtu512): " in text
    line = next(x for x in text.splitlines() if "Br0 (mtu512):" in x)
    assert line.endswith("MTU 512"), line
    markdown = render_markdown(report)
    assert "- Br0 (mtu512-tuned): " in markdown
    assert "MTU 1500" not in next(x for x in markdown.splitlines() if "(mtu512-tuned):" in x)


def test_a_column_whose_tests_ran_at_different_mtus_keeps_the_paths() -> None:
    run = at_variant_mtu(record(1))
    mixed = [o for o in run.outcomes if o.trial.variant in ("default", "mtu512")]
    relabelled = [
        dataclasses.replace(o, trial=dataclasses.replace(o.trial, variant="default")) for o in mixed
    ]
    report = build_report(dataclasses.replace(run, outcomes=tuple(relabelled)))
    assert [c.link.mtu for c in report.columns if c.link] == [1500]
