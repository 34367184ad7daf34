"""`wirespeed report [RUN]`: a stored run as a table, Markdown, CSV or JSON."""

from __future__ import annotations

import argparse
import io
from pathlib import Path

from wirespeed.cli.env import Environment
from wirespeed.cli.exit import ExitStatus


def execute(args: argparse.Namespace, env: Environment) -> int:
    from wirespeed.report import (
        build_report,
        render_csv,
        render_json,
        render_markdown,
        render_terminal,
    )
    from wirespeed.store import Store

    store = Store.open(args.db)
    try:
        report = build_report(store.load_run(args.run))
    finally:
        store.close()
    if args.format == "terminal":
        if args.output:
            buffer = io.StringIO()
            render_terminal(report, Environment(stdout=buffer, stdout_is_tty=False).console())
            text = buffer.getvalue()
        else:
            render_terminal(report, env.console())
            return ExitStatus.OK
    elif args.format == "markdown":
        text = render_markdown(report)
    elif args.format == "csv":
        text = render_csv(report)
    else:
        text = render_json(report)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
        env.info(f"written to {args.output}")
    else:
        env.stdout.write(text)
    return ExitStatus.OK
