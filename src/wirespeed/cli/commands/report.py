"""`wirespeed report [RUN]`: a stored run as a table, Markdown, CSV, JSON or HTML.

Several -o files are written from one report: the run is loaded once with what the
formats asked for together need, and each format rendered from the same report.
"""

from __future__ import annotations

import argparse
import dataclasses
from typing import TYPE_CHECKING, Literal

from wirespeed.cli.env import Environment
from wirespeed.cli.exit import ExitStatus
from wirespeed.cli.outputs import OutputTarget, output_targets, write_targets
from wirespeed.errors import UsageError

if TYPE_CHECKING:
    from wirespeed.report import Report
    from wirespeed.store.records import RunRecord

FORMATS = ("terminal", "markdown", "csv", "json", "html")


def execute(args: argparse.Namespace, env: Environment) -> int:
    from wirespeed.report import build_report
    from wirespeed.report.budgets import parse_budgets
    from wirespeed.store import Store

    budgets = parse_budgets(getattr(args, "budgets", None))  # a bad one: exit 2 at once
    targets = output_targets(args.output, args.format, FORMATS, "report")
    formats = {t.format for t in targets} if targets else {args.format or "terminal"}
    store = Store.open(args.db, read_only=True)
    try:
        # Only JSON and HTML show interval series (about half of the load); they write
        # them straight from the packed columns, without building an object per interval.
        # No report shows the raw outputs (most of a run's bytes), except where HTML
        # draws a summary stored before it kept its CPU timeline: from the stream.
        intervals: Literal["packed"] | bool = "packed" if formats & {"json", "html"} else False
        commands = "json" in formats  # only JSON lists the tools' commands
        # The power meter's readings are a raw output too, for JSON's and HTML's timelines.
        timelines = bool(formats & {"json", "html"})
        record = store.load_run(
            args.run, intervals=intervals, outputs=False, commands=commands or timelines
        )
        # A forwarding test's notes and charts come from its searches' logs, which are
        # raw outputs: loaded where the run has any.
        if any(o.trial.test.tool.searches for o in record.outcomes) or (
            timelines and has_meter(record)
        ):
            record = store.load_run(record.id, intervals=intervals, outputs=True, commands=True)
        elif "html" in formats:
            from wirespeed.report.device_samples import needs_streams

            # The latency section draws the probes' own outputs (and their commands say
            # which prober wrote them).
            probed = any(o.trial.test.spec.probes is not None for o in record.outcomes)
            if probed or needs_streams(record):
                record = store.load_run(
                    record.id, intervals=intervals, outputs=True, commands=commands or probed
                )
    finally:
        store.close()
    report = dataclasses.replace(build_report(record), budgets=budgets)
    from wirespeed.card.plan_text import card_marker

    if args.row or args.row_header:
        from wirespeed.cli.commands.card import print_row

        if card_marker(record.info.plan_text) is None:
            raise UsageError(
                f"run {record.id} is not a device card: --row is a card's row",
                hint="`wirespeed card TARGET` makes one; `wirespeed runs` lists the runs",
            )
        return print_row(args, env, report, record)

    if card_marker(record.info.plan_text) is not None and formats != {"csv"}:
        return _card(args, env, report, record, targets=targets, formats=formats)
    if not targets:
        if formats == {"terminal"}:
            from wirespeed.cli.document_output import show_document
            from wirespeed.report.run_document import run_document

            show_document(run_document(report), "terminal", env)
        else:
            env.stdout.write(_render(formats.pop(), report, record))
        return ExitStatus.OK
    write_targets(targets, lambda fmt: _render(fmt, report, record), env.info)
    return ExitStatus.OK


def _card(
    args: argparse.Namespace,
    env: Environment,
    report: Report,
    record: RunRecord,
    *,
    targets: list[OutputTarget],
    formats: set[str],
) -> int:
    """A device card's run: the card before each format's report (its CSV the report's:
    card/output.py)."""
    from wirespeed.card.output import render_card

    def text(fmt: str) -> str:
        return render_card(fmt, report, record)

    if not targets:
        fmt = formats.pop()
        if fmt == "terminal":  # at the terminal's width, as a run's report is shown
            env.stdout.write(render_card(fmt, report, record, env.console().width))
        else:
            env.stdout.write(text(fmt))
        return ExitStatus.OK
    write_targets(targets, text, env.info)
    return ExitStatus.OK


def _render(fmt: str, report: Report, record: RunRecord) -> str:
    """The report's text in a format; the terminal's as plain text, without colour."""
    if fmt == "html":
        from wirespeed.report.device_samples import device_samples
        from wirespeed.report.html import render_html

        return render_html(report, device_samples(record))
    from wirespeed.cli.document_output import document_text
    from wirespeed.report.run_document import run_document

    # The run's document in every other format; its JSON and CSV are the run's data.
    return document_text(run_document(report), fmt)


def has_meter(record: RunRecord) -> bool:
    """Whether a trial of the run read a power meter (its commands say)."""
    from wirespeed.report.power_json import METER_FORMAT

    return any(raw.format == METER_FORMAT for o in record.outcomes for raw in o.raw)
