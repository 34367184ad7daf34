"""`wirespeed compare [A B]`: two runs, or two paths or variants of one run, side by side.

To wire it, in wirespeed/cli/app.py add to COMMANDS:

    "compare": "compare",

and in build_parser(), after the `report` parser:

    compare = sub.add_parser(
        "compare",
        help="compare two runs (default: the latest two), or two paths or variants of one",
        description="Match the trials of A and B by test, path, variant and flow; show "
        "both medians, the ratio B/A with its 95 % bootstrap interval, and whether a "
        "permutation test tells the difference from noise.",
    )
    compare.add_argument(
        "runs", nargs="*", type=int, metavar="RUN",
        help="run ids (`runs`): A B for two runs (default: the latest two); "
        "one run with --paths or --variants (default: the latest)",
    )
    compare.add_argument(
        "--paths", nargs=2, metavar=("A", "B"), help="compare two paths of one run, e.g. WAN Br0"
    )
    compare.add_argument(
        "--variants", nargs=2, metavar=("A", "B"), help="compare two variants of one run"
    )
    compare.add_argument(
        "--format", default="terminal", choices=["terminal", "markdown", "csv", "json"],
        help="output format (default: terminal)",
    )
    compare.add_argument("-o", "--output", metavar="FILE", help="write to FILE, not stdout")
    _add_db(compare)

and to EPILOG:

    wirespeed compare 7 8                               run 8 against run 7, test by test
    wirespeed compare 7 --paths WAN Br0                 two paths of one run
"""

from __future__ import annotations

import argparse
import io
from typing import TYPE_CHECKING

from wirespeed.cli.env import Environment
from wirespeed.cli.exit import ExitStatus
from wirespeed.cli.outputs import check_output, write_output
from wirespeed.errors import UsageError

if TYPE_CHECKING:
    from wirespeed.analysis.compare import Comparison
    from wirespeed.store import Store


def _latest_two(store: Store) -> tuple[int, int]:
    runs = store.list_runs()
    if len(runs) < 2:
        raise UsageError(
            f"compare needs two runs, the store has {len(runs)}",
            hint="make another with `wirespeed run PLAN`, or compare two paths of one run "
            "with --paths A B",
        )
    return runs[-2].id, runs[-1].id


def _comparison(args: argparse.Namespace, store: Store) -> Comparison:
    from wirespeed.analysis.compare import compare_paths, compare_runs, compare_variants

    runs: list[int] = list(args.runs or [])
    paths: list[str] | None = getattr(args, "paths", None)
    variants: list[str] | None = getattr(args, "variants", None)
    if paths and variants:
        raise UsageError("give --paths or --variants, not both")
    if paths or variants:
        if len(runs) > 1:
            raise UsageError(
                f"--{'paths' if paths else 'variants'} compares within one run, got {len(runs)}",
                hint="give one run id, or none for the latest run",
            )
        record = store.load_run(
            runs[0] if runs else None, intervals=False, outputs=False, commands=False
        )
        if paths:
            return compare_paths(record, paths[0], paths[1])
        assert variants is not None
        return compare_variants(record, variants[0], variants[1])
    if len(runs) == 1:
        raise UsageError(
            "compare needs two runs, or one run with --paths A B or --variants A B",
            hint=f"e.g. `wirespeed compare {runs[0]} OTHER` or "
            f"`wirespeed compare {runs[0]} --paths WAN Br0`",
        )
    if len(runs) > 2:
        raise UsageError(f"compare takes two runs, got {len(runs)}")
    first, second = runs if runs else _latest_two(store)
    # Compare shows neither interval series nor raw outputs.
    return compare_runs(
        store.load_run(first, intervals=False, outputs=False, commands=False),
        store.load_run(second, intervals=False, outputs=False, commands=False),
    )


def execute(args: argparse.Namespace, env: Environment) -> int:
    from wirespeed.report import (
        render_compare_csv,
        render_compare_json,
        render_compare_markdown,
        render_compare_terminal,
    )
    from wirespeed.report.budgets import parse_budgets
    from wirespeed.store import Store

    budgets = parse_budgets(getattr(args, "budgets", None))  # a bad one: exit 2 at once
    output = getattr(args, "output", None)
    fmt = getattr(args, "format", "terminal")
    suffix = {"terminal": "txt", "markdown": "md"}.get(fmt, fmt)
    target = check_output(output, "-o", f"compare.{suffix}") if output else None
    store = Store.open(args.db, read_only=True)
    try:
        comparison = _comparison(args, store)
    finally:
        store.close()
    if fmt == "terminal":
        if target is None:
            render_compare_terminal(comparison, env.console(), budgets)
            return ExitStatus.OK
        buffer = io.StringIO()
        render_compare_terminal(
            comparison,
            Environment(stdout=buffer, stdout_is_tty=False, colour=False).console(),
            budgets,
        )
        text = buffer.getvalue()
    elif fmt == "markdown":
        text = render_compare_markdown(comparison, budgets)
    elif fmt == "csv":
        text = render_compare_csv(comparison, budgets)
    else:
        text = render_compare_json(comparison, budgets)
    if target is not None:
        write_output(target, text, "-o")
        env.info(f"written to {target}")
    else:
        env.stdout.write(text)
    return ExitStatus.OK
