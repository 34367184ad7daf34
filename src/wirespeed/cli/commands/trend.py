"""`wirespeed trend --by firmware`: a device's comparable runs grouped by a label, each
group judged against the one before (regression, progression, no change), and the change
points over time; `--fail-on regression` makes it a gate (exit 5)."""

from __future__ import annotations

import argparse
import re
from typing import TYPE_CHECKING

from wirespeed.cli.env import Environment, plain_text
from wirespeed.cli.exit import ExitStatus
from wirespeed.cli.options import add_output_files
from wirespeed.cli.outputs import output_targets, run_id, write_targets
from wirespeed.errors import UsageError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from wirespeed.analysis.trend import MinEffect, Trend
    from wirespeed.store import RunRecord

FORMATS = ("terminal", "markdown", "json", "html")
_PERCENT = re.compile(r"(?P<value>\d+(?:\.\d+)?)\s*%?")


def min_effect_of(text: str | None) -> MinEffect:
    """--min-effect: `noise` (default) or a percentage, 5 or 5%."""
    from wirespeed.analysis.trend import MinEffect

    if text is None or text.strip().lower() == "noise":
        return MinEffect()
    match = _PERCENT.fullmatch(text.strip())
    if match is None or not 0 <= float(match["value"]) < 100:
        raise UsageError(
            f"--min-effect {text!r}: give `noise` or a percentage from 0 to 100",
            hint="e.g. --min-effect 5% (a change must exceed 5 % to be a verdict)",
        )
    return MinEffect(float(match["value"]) / 100)


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    trend = sub.add_parser(
        "trend",
        help="a device's runs over firmware, kernels or time: which version regressed",
        description="Puts the stored runs' figures in series (one per measurement measured "
        "the same way: same test and settings, path, link, variant, tool version), groups "
        "each series' runs by a label (--by firmware: `run --label firmware=...`; kernel "
        "and os are the DUT's, no label needed) and judges each group against the one "
        "before: Welch's t-test and a minimum effect, a regression, a progression or no "
        "change, with the change's size and interval. Change points over time, labels or "
        "not: the best split of the series' runs judged the same way (docs/trend.md).",
    )
    trend.add_argument(
        "runs",
        nargs="*",
        type=run_id,
        metavar="RUN",
        help="run ids to look at (default: every run in the store)",
    )
    trend.add_argument(
        "--by",
        metavar="LABEL",
        help="group runs by this label: a key of `run --label KEY=VALUE`, or kernel or os "
        "(the DUT's); without it: change points over time only",
    )
    trend.add_argument("--path", metavar="NAME", help="only this path's (device's) figures")
    trend.add_argument(
        "--min-effect",
        metavar="PCT",
        help="a change smaller than this is `no change` whatever the test says: a "
        "percentage (5%%), or noise: the larger CV of the two groups (default)",
    )
    trend.add_argument(
        "--alpha",
        type=float,
        default=0.05,
        metavar="P",
        help="the test's significance level, 0.001 to 0.2 (default 0.05)",
    )
    trend.add_argument(
        "--baseline",
        metavar="RUN|LABEL",
        help="judge the newest group against this group (a value of --by) or run, not "
        "against the group before it",
    )
    trend.add_argument(
        "--fail-on",
        choices=["regression"],
        help="exit 5 when a measurement's newest group regressed (against the one before, "
        "or --baseline): a gate for CI and firmware builds",
    )
    trend.add_argument(
        "--format",
        choices=FORMATS,
        help="output format of stdout and of every -o file (default: terminal, and each "
        "file's from its extension)",
    )
    add_output_files(
        trend,
        help="write to FILE, not stdout, in the format of its extension (.md .json .html "
        ".txt); repeat for several files",
    )
    return trend


def _render(fmt: str, trend: Trend) -> str:
    from wirespeed.report.trend_render import (
        render_trend_html,
        render_trend_json,
        render_trend_markdown,
        render_trend_terminal,
    )

    if fmt == "terminal":
        return plain_text(lambda console: render_trend_terminal(trend, console))
    renderers = {
        "markdown": render_trend_markdown,
        "json": render_trend_json,
        "html": render_trend_html,
    }
    return renderers[fmt](trend)


def execute(args: argparse.Namespace, env: Environment) -> int:
    from wirespeed.analysis.trend import trend
    from wirespeed.store import Store

    fmt: str | None = args.format
    targets = output_targets(args.output, fmt, FORMATS, "trend")
    min_effect = min_effect_of(args.min_effect)
    if not 0.001 <= args.alpha <= 0.2:
        raise UsageError(f"--alpha must be 0.001 to 0.2, got {args.alpha:g}")
    if args.baseline is not None and args.by is None:
        # Without groups there is no newest group to judge against it.
        raise UsageError(
            f"--baseline {args.baseline} judges the newest group of --by against it",
            hint=f"e.g. --by firmware --baseline {args.baseline}",
        )
    store = Store.open(args.db, read_only=True)
    try:
        ids = list(args.runs) or [r.id for r in store.list_runs()]
        if len(ids) < 2:
            raise UsageError(
                f"a trend needs two runs or more, {'given' if args.runs else 'stored'} {len(ids)}",
                hint="label runs as you make them: wirespeed run PLAN --label firmware=X",
            )
        records = [
            store.load_run(run, intervals=False, outputs=False, commands=False) for run in ids
        ]
    finally:
        store.close()
    found = trend(
        records,
        by=args.by,
        min_effect=min_effect,
        alpha=args.alpha,
        baseline=args.baseline,
        path=args.path,
    )
    _check_asked(args, found, records)
    if not targets:
        if fmt in (None, "terminal"):
            from wirespeed.report.trend_render import render_trend_terminal

            render_trend_terminal(found, env.console())
        else:
            env.stdout.write(_render(fmt, found))
    write_targets(targets, lambda fmt: _render(fmt, found), env.info)
    return _gate(args, found, env)


def _check_asked(args: argparse.Namespace, found: Trend, runs: Sequence[RunRecord]) -> None:
    """A label no run has, a path no run measured, a baseline no group is: said, exit 2,
    not an empty table."""
    from wirespeed.analysis.trend import AUTOMATIC_KEYS, run_labels

    if args.by is not None and len(found.unlabelled) == len(runs):
        known = sorted({k for r in runs for k in run_labels(r)} | set(AUTOMATIC_KEYS))
        raise UsageError(
            f"no run has a label {args.by!r}",
            hint=f"labels the runs have: {', '.join(known)}; label a run with "
            f"`wirespeed run PLAN --label {args.by}=VALUE`",
        )
    if args.path is not None and not found.series:
        paths = sorted({o.trial.path.name for r in runs for o in r.outcomes})
        raise UsageError(
            f"no two runs measured path {args.path!r}", hint=f"their paths: {', '.join(paths)}"
        )
    if args.baseline is not None and found.series and all(s.baseline is None for s in found.series):
        groups = sorted({g.name for s in found.series for g in s.groups})
        raise UsageError(
            f"--baseline {args.baseline}: no group or run of that name, or it is the newest",
            hint=f"groups: {', '.join(groups) or 'none'}",
        )


def _gate(args: argparse.Namespace, found: Trend, env: Environment) -> int:
    if args.fail_on != "regression":
        return ExitStatus.OK
    regressed = found.regressions()
    if not regressed:
        env.info(f"no regression in the newest group of {len(found.series)} measurements")
        return ExitStatus.OK
    from wirespeed.report.trend_render import percent_text, series_title

    said = []
    for series in regressed[:3]:
        step = series.newest
        assert step is not None
        change = percent_text(step)
        said.append(f"{series_title(series)}: {step.after} against {step.before} {change}")
    more = f"; and {len(regressed) - 3} more" if len(regressed) > 3 else ""
    env.error(f"{len(regressed)} regressions: " + "; ".join(said) + more)
    return ExitStatus.BELOW_EXPECTATION
