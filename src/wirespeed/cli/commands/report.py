"""`wirespeed report [RUN]`: a stored run as a table, Markdown, CSV, JSON or HTML."""

from __future__ import annotations

import argparse
import dataclasses
import io
from typing import Literal

from wirespeed.cli.env import Environment
from wirespeed.cli.exit import ExitStatus
from wirespeed.cli.outputs import check_output, write_output


def execute(args: argparse.Namespace, env: Environment) -> int:
    from wirespeed.report import (
        build_report,
        render_csv,
        render_json,
        render_markdown,
        render_terminal,
    )
    from wirespeed.report.budgets import parse_budgets
    from wirespeed.store import Store

    budgets = parse_budgets(getattr(args, "budgets", None))  # a bad one: exit 2 at once
    suffix = {"terminal": "txt", "markdown": "md"}.get(args.format, args.format)
    output = check_output(args.output, "-o", f"report.{suffix}") if args.output else None
    store = Store.open(args.db, read_only=True)
    try:
        # Only JSON and HTML show interval series (about half of the load); they write
        # them straight from the packed columns, without building an object per interval.
        # No report shows the raw outputs (most of a run's bytes), except where HTML
        # draws a summary stored before it kept its CPU timeline: from the stream.
        intervals: Literal["packed"] | bool = "packed" if args.format in ("json", "html") else False
        commands = args.format == "json"  # only JSON lists the tools' commands
        record = store.load_run(args.run, intervals=intervals, outputs=False, commands=commands)
        if args.format == "html":
            from wirespeed.report.device_samples import needs_streams

            if needs_streams(record):
                record = store.load_run(
                    record.id, intervals=intervals, outputs=True, commands=commands
                )
    finally:
        store.close()
    report = dataclasses.replace(build_report(record), budgets=budgets)
    if args.format == "terminal":
        if output:
            buffer = io.StringIO()
            plain = Environment(stdout=buffer, stdout_is_tty=False, colour=False)
            render_terminal(report, plain.console())
            text = buffer.getvalue()
        else:
            render_terminal(report, env.console())
            return ExitStatus.OK
    elif args.format == "markdown":
        text = render_markdown(report)
    elif args.format == "csv":
        text = render_csv(report)
    elif args.format == "html":
        from wirespeed.report.device_samples import device_samples
        from wirespeed.report.html import render_html

        text = render_html(report, device_samples(record))
    else:
        text = render_json(report)
    if output:
        write_output(output, text, "-o")
        env.info(f"written to {output}")
    else:
        env.stdout.write(text)
    return ExitStatus.OK
