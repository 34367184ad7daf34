"""`wirespeed`: the dispatch to commands (their parser: cli/parser.py)."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

from wirespeed.cli.env import Environment
from wirespeed.cli.exit import ExitStatus, raise_on_sigterm, run_guarded
from wirespeed.cli.parser import build_parser
from wirespeed.kinds import wire_hooks

# command name -> module in wirespeed.cli.commands that defines `execute(args, env) -> int`
COMMANDS = {
    "run": "run",
    "check": "check",
    "facts": "facts",
    "lab": "lab",
    "import": "import_",
    "runs": "runs",
    "report": "report",
    "compare": "compare",
    "tune": "tune",
    "completion": "completion",
    "manpage": "manpage",
    "plans": "plans",
    "soak": "soak",
    "card": "card",
    "export": "export",
    "trend": "trend",
    "site": "site",
}


def main(argv: Sequence[str] | None = None, env: Environment | None = None) -> int:
    env = env or Environment()
    parser = build_parser()
    args = parser.parse_args(argv)  # exits 2 with a usage message on bad options
    if args.command is None:
        parser.print_help(env.stdout)
        return ExitStatus.USAGE
    env.quiet = bool(getattr(args, "quiet", False))
    if "db" in vars(args) and args.db is None:
        args.db = env.db  # --db first, then WIRESPEED_DB, then the default store
    args.argv = list(sys.argv[1:] if argv is None else argv)  # for the run's provenance
    raise_on_sigterm()
    wire_hooks()  # the layers below find each kind's hooks (kinds/__init__.py)
    module = importlib.import_module(f"wirespeed.cli.commands.{COMMANDS[args.command]}")
    status: int = run_guarded(env, lambda: module.execute(args, env), show_traceback=args.traceback)
    return status


def entry() -> None:
    sys.exit(main())


if __name__ == "__main__":
    entry()
