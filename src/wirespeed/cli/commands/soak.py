"""`wirespeed soak PLAN | --resume SOAK | --report [SOAK] | --compare [SOAK ...]`: hours
of a paced probe stream, its outages and the kernel events that came with them; a plan
with `variants:` soaks once per variant and compares them (docs/plan-format.md,
"Soak"). The soak itself is soak/session.py's; here its options, its words, its files."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from wirespeed.cli.env import Environment
from wirespeed.cli.exit import ExitStatus
from wirespeed.cli.measuring import judgements_status, ssh_settings
from wirespeed.cli.options import add_output_files
from wirespeed.cli.outputs import OutputTarget, output_targets, write_output
from wirespeed.errors import UsageError

if TYPE_CHECKING:
    from wirespeed.report.document import Document
    from wirespeed.soak.soak_runner import Progress
    from wirespeed.store import Store

# The formats of a soak's report and of a comparison of soaks (compare's), in
# outputs.py's words; `text` is the terminal's, as soak has always called it.
FORMATS = ("terminal", "markdown", "json", "html")
COMPARE_FORMATS = ("terminal", "markdown", "csv", "json", "html")


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    soak = sub.add_parser(
        "soak",
        help="a soak test: a paced probe stream for hours, its outages and kernel events",
    )
    soak.add_argument("plan", nargs="?", metavar="PLAN", help="soak plan file, or - for stdin")
    soak.add_argument(
        "--resume",
        type=int,
        metavar="SOAK",
        help="continue an unfinished soak (then its variants still to soak)",
    )
    soak.add_argument(
        "--report", nargs="?", type=int, const=0, metavar="SOAK",
        help="report a stored soak (default: the latest)",
    )  # fmt: skip
    soak.add_argument(
        "--compare", nargs="*", type=int, metavar="SOAK",
        help="stored soaks side by side, the first the baseline (default: the latest "
        "soak's variants, else the latest two); as `compare --soaks`",
    )  # fmt: skip
    soak.add_argument(
        "--format", choices=["terminal", "text", "markdown", "csv", "json", "html"],
        default=None,
        help="output format of stdout and of every -o file (default: terminal, and each "
        "file's from its extension; csv: --compare only)",
    )  # fmt: skip
    add_output_files(
        soak,
        help="write the report to FILE, in the format of its extension (.md .json .html "
        ".txt: the terminal's text; .csv: --compare); repeat for several files",
    )  # fmt: skip
    soak.add_argument(
        "--outage", type=int, metavar="N",
        help="--report, --compare: an outage is N consecutive lost probes (default: the "
        "plan's)",
    )  # fmt: skip
    soak.add_argument(
        "--lab-name", metavar="NAME", help="name of the lab built (default soak-TOPOLOGY)"
    )
    return soak


def execute(args: argparse.Namespace, env: Environment) -> int:
    from wirespeed.store import Store

    if args.outage is not None and args.outage < 1:
        raise UsageError("--outage: at least 1 lost probe")
    reading = args.report is not None or args.compare is not None
    if not reading and args.resume is None and args.plan is None:
        raise UsageError("wirespeed soak needs a PLAN, --resume SOAK, --report or --compare")
    comparing = args.compare is not None and args.report is None
    fmt = "terminal" if args.format == "text" else args.format
    # Every -o is checked before anything is read or measured (`report -o` does the same).
    targets = output_targets(args.output, fmt, COMPARE_FORMATS if comparing else FORMATS, "soak")
    if fmt == "csv" and not comparing:
        raise UsageError("a soak's report has no CSV", hint="--compare writes CSV")
    if reading:
        with Store.open(args.db, read_only=True) as store:
            if args.report is not None:
                return _report(store, args.report or None, targets, fmt, env, threshold=args.outage)
            return _compare(store, args.compare, targets, fmt, env, threshold=args.outage)
    # The plan and --ssh-config are checked before the store is opened (or made).
    ssh = ssh_settings(args, env)
    from wirespeed.soak import session

    argv = getattr(args, "argv", [])
    if args.resume is not None:
        with Store.open(args.db) as store:
            tell = _Told(store, env, targets)
            soaked = session.resume(store, args.resume, argv=argv, ssh=ssh, tell=tell)
            return _ended(store, soaked, targets, env)
    from wirespeed.plan.sources import plan_text_from_argument
    from wirespeed.soak.plan import parse_soak_plan

    text, source = plan_text_from_argument(args.plan, sys.stdin.buffer)
    plan = parse_soak_plan(text, source)
    with Store.open(args.db) as store:
        tell = _Told(store, env, targets)
        soaked = session.start(
            store, text, plan, lab_name=args.lab_name, argv=argv, ssh=ssh, tell=tell
        )
        return _ended(store, soaked, targets, env)


class _Told:
    """session.Tell on the command's streams: progress on stderr, each soak's summary on
    stdout (and in each -o file) as it ends."""

    def __init__(self, store: Store, env: Environment, targets: list[OutputTarget]) -> None:
        self.store = store
        self.env = env
        self.targets = targets
        self.last = 0.0

    def note(self, text: str) -> None:
        self.env.info(text)

    def line(self, text: str) -> None:
        self.env.stderr.write(text + "\n")

    def progress(self, progress: Progress) -> None:
        env = self.env
        now = time.monotonic()
        if now - self.last < (1.0 if env.stderr_is_tty else 60.0) or env.quiet:
            return
        self.last = now
        left = max(0.0, progress.duration - progress.watched)
        outages = progress.outages
        said = f"{len(outages)} outage{'s' if len(outages) != 1 else ''} so far"
        if outages:
            when = time.strftime("%H:%M:%S", time.localtime(outages[-1].start))
            said += f" (last {outages[-1].duration:.2f} s at {when})"
        line = f"soak {_clock(progress.watched)} elapsed, {_clock(left)} left, {said}"
        env.stderr.write(("\r" + line + "\x1b[K") if env.stderr_is_tty else line + "\n")
        env.stderr.flush()

    def ended(self, soak_id: int) -> None:
        from wirespeed.cli.document_output import show_document
        from wirespeed.soak.group import variant_of
        from wirespeed.soak.render import soak_result, summary_of

        if self.env.stderr_is_tty:
            self.env.stderr.write("\n")  # below the progress line
        summary = summary_of(self.store, soak_id)
        if summary is None:
            return
        document = soak_result(summary)
        show_document(document, "terminal", self.env)
        _write(document, self.targets, self.env, variant=variant_of(summary.header.info))


def _clock(seconds: float) -> str:
    whole = int(seconds)
    return f"{whole // 3600}:{whole % 3600 // 60:02d}:{whole % 60:02d}"


def _ended(store: Store, soaked: list[int], targets: list[OutputTarget], env: Environment) -> int:
    """After the soaks: the variants compared (on stdout, and in each -o FILE, whose
    variants' reports went beside it), then the expectations of every soak: exit status
    5 when one is not met."""
    from wirespeed.soak.session import judgements, variants_soaked

    if variants_soaked(store, soaked):
        _compare(store, [], [], "terminal", env, latest=soaked[-1])
        if targets:
            _compare(store, [], targets, None, env, latest=soaked[-1])
    return judgements_status(judgements(store, soaked), env)


def variant_path(output: str | Path, variant: str) -> Path:
    """Where a variant's report goes when a soak has several: soak.html becomes
    soak-mtu9000.html, so that one variant's report does not overwrite another's."""
    path = Path(output)
    return path.with_name(f"{path.stem}-{variant}{path.suffix}")


def _write(
    document: Document,
    targets: list[OutputTarget],
    env: Environment,
    *,
    variant: str | None = None,
) -> None:
    """The soak's document in each -o file, in the file's format."""
    from wirespeed.cli.document_output import document_text

    for target in targets:
        path = variant_path(target.path, variant) if variant else target.path
        write_output(path, document_text(document, target.format), "-o")
        env.stderr.write(f"wrote {path}\n")


def _report(
    store: Store,
    soak_id: int | None,
    targets: list[OutputTarget],
    fmt: str | None,
    env: Environment,
    *,
    threshold: int | None,
) -> int:
    from wirespeed.cli.document_output import show_document
    from wirespeed.soak.render import soak_result, summary_of

    summary = summary_of(store, soak_id, threshold=threshold)
    if summary is None:
        raise UsageError("no such soak in the store" if soak_id else "no soak in the store")
    document = soak_result(summary)
    if targets:
        _write(document, targets, env)
    else:
        show_document(document, fmt or "terminal", env)
    return ExitStatus.OK


def _compare(
    store: Store,
    soak_ids: list[int],
    targets: list[OutputTarget],
    fmt: str | None,
    env: Environment,
    *,
    threshold: int | None = None,
    latest: int | None = None,
) -> int:
    """Soaks side by side (soak/comparison.py), as `compare --soaks` shows them."""
    from wirespeed.cli.commands.compare import show_table
    from wirespeed.soak.comparison import compare_soaks, soaks_to_compare

    summaries = soaks_to_compare(store, soak_ids, latest=latest, threshold=threshold)
    return show_table(compare_soaks(summaries), targets, fmt, env)
