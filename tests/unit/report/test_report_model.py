"""The report model: the seeds' table shape, medians, ceilings and notes."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from report_samples import BR0, DUAL, TCP, ok, sample_record, tcp_direction

from support.run_report import render_markdown
from support.samples import GBE, run_record
from wirespeed.model import (
    DirectionResult,
    Flow,
    LinkModel,
    MonitorRecord,
    PathSpec,
    Topology,
    TrialOutcome,
)
from wirespeed.report.model import NoteKind, build_report
from wirespeed.report.text import cell_lines, loss_text
from wirespeed.store.records import RunRecord


def test_tests_are_rows_and_paths_are_columns_in_the_order_they_ran() -> None:
    report = build_report(sample_record())
    assert [c.label for c in report.columns] == ["WAN", "Br0"]
    assert [r.test_id for r in report.rows] == ["#1", "#4", "#5", "#7"]


def test_repetitions_give_the_median_and_their_number() -> None:
    cell = build_report(sample_record()).rows[0].cells[0]
    assert cell is not None
    assert cell.n == 3
    assert cell.flows[0].goodput_bps == pytest.approx(941.2e6)
    assert cell_lines(cell) == ["941 ±2 / 941.5 (n=3, CV 0.1 %)"]


def test_a_dual_test_shows_each_direction_against_its_own_ceiling() -> None:
    cell = build_report(sample_record()).rows[1].cells[0]
    assert cell is not None
    assert [f.flow for f in cell.flows] == [Flow.UP, Flow.DOWN]
    assert cell_lines(cell) == ["\N{UPWARDS ARROW} 922 / 941.5", "\N{DOWNWARDS ARROW} 915 / 941.5"]


def test_a_failed_trial_is_marked_and_its_reason_noted() -> None:
    report = build_report(sample_record())
    cell = report.rows[1].cells[1]
    assert cell is not None
    assert (cell.trials_ok, cell.trials_failed) == (0, 1)
    (number,) = cell.notes
    note = report.notes[number - 1]
    assert note.kind is NoteKind.FAILURE
    assert note.text == "failed: the reverse connection never arrived (iperf2 -d)"
    assert note.trials == ("#4/Br0/default/1",)
    assert cell_lines(cell) == [f"failed [{number}]"]


def test_udp_shows_loss_computed_from_the_counters() -> None:
    report = build_report(sample_record())
    cell = report.rows[2].cells[0]
    assert cell is not None
    assert cell_lines(cell) == ["957 / 957.0, loss 0.01 %"]
    assert cell.notes == ()


def test_loss_above_99_5_percent_is_noted_even_when_the_parser_did_not() -> None:
    report = build_report(sample_record())
    cell = report.rows[2].cells[1]
    assert cell is not None
    (number,) = cell.notes
    assert report.notes[number - 1].code == "loss-saturated"
    assert cell_lines(cell) == [f"64.0 / 957.0, loss 99.97 % [{number}]"]


def test_a_missing_server_report_is_noted_with_the_tools_words() -> None:
    report = build_report(sample_record())
    cell = report.rows[3].cells[0]
    assert cell is not None
    (number,) = cell.notes
    note = report.notes[number - 1]
    assert note.code == "no-server-report"
    assert note.text.startswith("no server report: receiver-side goodput")
    assert note.details == ("WARNING: did not receive ack of last datagram after 10 tries.",)
    # iperf2's 1470-byte datagrams at MTU 512 travel in 4 fragments: 853.7 at most.
    assert cell_lines(cell) == [f"854 / 853.7 [{number}]"]


def test_a_test_not_run_on_a_path_has_no_cell() -> None:
    assert build_report(sample_record()).rows[3].cells[1] is None


def test_a_sender_side_figure_without_a_warning_gets_a_note() -> None:
    direction = tcp_direction(Flow.UP, 900.0)
    sender_only = DirectionResult(flow=Flow.UP, sent=direction.sent)
    report = build_report(_record(ok(TCP, BR0, sender_only)))
    assert [n.code for n in report.notes] == ["sender-side"]


def test_a_figure_above_the_ceiling_is_suspect() -> None:
    report = build_report(_record(ok(TCP, BR0, tcp_direction(Flow.UP, 990.0))))
    assert [n.code for n in report.notes] == ["above-ceiling"]


def test_a_missing_direction_of_a_dual_test_is_noted() -> None:
    report = build_report(_record(ok(DUAL, BR0, tcp_direction(Flow.UP, 930.0))))
    cell = report.rows[0].cells[0]
    assert cell is not None
    assert [n.code for n in report.notes] == ["missing-flow"]
    assert cell_lines(cell)[1] == "\N{DOWNWARDS ARROW} \N{EN DASH} [1]"


def test_an_unshaped_link_has_no_ceiling() -> None:
    unshaped = PathSpec(
        name="lab",
        topology=Topology.ROUTER,
        client="c",
        server="s",
        link=LinkModel("unshaped", None),
    )
    cell = build_report(_record(ok(TCP, unshaped, tcp_direction(Flow.UP, 4200.0)))).rows[0].cells[0]
    assert cell is not None
    assert cell_lines(cell) == ["4200 / \N{EN DASH}"]


def test_several_variants_become_separate_columns() -> None:
    report = build_report(
        _record(
            ok(TCP, BR0, tcp_direction(Flow.UP, 680.0)),
            _variant(ok(TCP, BR0, tcp_direction(Flow.UP, 758.0)), "irq-a72"),
        )
    )
    assert [c.label for c in report.columns] == ["Br0 (default)", "Br0 (irq-a72)"]
    assert all(c.link == GBE for c in report.columns)


@pytest.mark.parametrize(
    ("percent", "text"),
    [(0.0, "0 %"), (0.004, "<0.01 %"), (4.8, "4.80 %"), (12.34, "12.3 %"), (99.969, "99.97 %")],
)
def test_loss_reads_with_the_digits_that_matter(percent: float, text: str) -> None:
    assert loss_text(percent) == text


def test_loss_just_below_100_never_reads_as_100() -> None:
    assert loss_text(99.9999) == ">99.99 %"
    assert loss_text(100.0) == "100.00 %"


def _record(*outcomes: TrialOutcome) -> RunRecord:
    return run_record(*outcomes)


def _variant(outcome: TrialOutcome, variant: str) -> TrialOutcome:
    return dataclasses.replace(outcome, trial=dataclasses.replace(outcome.trial, variant=variant))


def test_a_device_that_sampled_less_often_than_asked_gets_a_note() -> None:
    # The summary of a real sampler run on the R4S tree under busybox built without
    # fractional `read -t` and `sleep` (as OpenWrt ships it), asked for 0.1 s:
    # tests/unit/sampling/test_sampling_interval.py makes the same, from the same tree.
    summary = (Path(__file__).parent / "summary-r4s-whole-seconds.json").read_text()
    raised = MonitorRecord("r4s", "dut", 1.0, "", summary)
    kept = MonitorRecord("r4s", "dut", 0.1, "", summary.replace('": 0.1', '": null'))
    record = sample_record()
    first, second, *rest = record.outcomes
    outcomes = (
        dataclasses.replace(first, monitors=(raised,)),
        dataclasses.replace(second, monitors=(kept,)),
        *rest,
    )
    report = build_report(dataclasses.replace(record, outcomes=outcomes))
    notes = [note for note in report.notes if note.code == "interval-raised"]
    assert len(notes) == 1 and notes[0].kind is NoteKind.WARNING
    assert notes[0].details == ("r4s: every 1 s, not 0.1 s",)
    assert notes[0].trials == (first.trial.key,)
    assert "fraction of a second" in render_markdown(report)
