"""A finished run's report, shown without putting the run at risk.

The run is stored before any report is built. A fault in building or rendering it (a
fault of wirespeed's, not of the run) is said in one line with the way to read the run
back, and `run` exits FAILED, instead of ending in a traceback that hides the run's id.
"""

from __future__ import annotations

import argparse
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from wirespeed.cli.env import Environment
from wirespeed.cli.outputs import write_output
from wirespeed.errors import WirespeedError

if TYPE_CHECKING:
    from wirespeed.report.model import Report
    from wirespeed.store import RunRecord


def report_finished_run(
    args: argparse.Namespace,
    env: Environment,
    record: RunRecord,
    store_url: str,
    markdown: Path | None = None,
) -> Report | None:
    """The run's report, shown as `run` shows it and written to `markdown`, each apart
    (a table that fails does not cost the Markdown file); None where any of it could
    not be rendered, which is said on stderr."""
    from wirespeed.cli.document_output import document_text
    from wirespeed.report import build_report
    from wirespeed.report.run_document import run_document

    built: list[Report] = []
    # Every format is built from the report: where building it fails, none can be had.
    listed = "`wirespeed runs` lists it"
    if not _rendered(
        args, env, record.id, lambda: built.append(build_report(record)), readable=listed
    ):
        return None
    report = built[0]
    shown = _rendered(args, env, record.id, lambda: show_run(args, env, record, report, store_url))
    if markdown is not None and _rendered(
        args,
        env,
        record.id,
        lambda: write_output(
            markdown, document_text(run_document(report), "markdown"), "--markdown"
        ),
    ):
        env.info(f"Markdown report written to {markdown}")
    elif markdown is not None:
        shown = False
    return report if shown else None


def show_run(
    args: argparse.Namespace, env: Environment, record: RunRecord, report: Report, store_url: str
) -> None:
    """A finished run on stdout: its table; with --json its JSON document instead; with
    -q only its id, so that `id=$(wirespeed run -q plan.yaml)` has it. Progress and
    notices stay on stderr."""
    if args.json:
        from wirespeed.cli.documents import run_document, write_json
        from wirespeed.report.run_json import expectations_summary

        document = run_document(
            record.id, record.status, record.outcomes, store_url, expectations_summary(report)
        )
        write_json(env, document)
    elif env.quiet:
        env.stdout.write(f"{record.id}\n")
    else:
        from wirespeed.cli.document_output import show_document
        from wirespeed.report.run_document import run_document as report_document

        show_document(report_document(report), "terminal", env)
    env.info(f"run {record.id} stored; `wirespeed report {record.id}` shows it again")


def _rendered(
    args: argparse.Namespace,
    env: Environment,
    run_id: int,
    render: Callable[[], object],
    readable: str | None = None,
) -> bool:
    try:
        render()
    except (OSError, WirespeedError):
        raise  # an output that cannot be written: said as every command says it
    except Exception as error:
        env.error(
            f"run {run_id} is stored, but its report could not be rendered "
            f"({type(error).__name__}: {error})",
            # The JSON report is written by code of its own.
            hint=(readable or f"`wirespeed report {run_id} --format json` gives its figures")
            + "; --traceback shows where rendering failed",
        )
        if getattr(args, "traceback", False):
            env.stderr.write(traceback.format_exc())
        return False
    return True
