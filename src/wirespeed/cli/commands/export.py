"""`wirespeed export [RUN ...] -o FILE.wsr`: stored runs (a card is one) as one bundle to
share: every trial with its raw outputs, measurements, findings and samples, the plan,
the provenance, the identity of what was measured and the run's verdict; host names,
addresses, user names and SSH config paths as pseudonyms unless --keep-names."""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wirespeed.cli.env import Environment
from wirespeed.cli.exit import ExitStatus
from wirespeed.cli.options import add_flag
from wirespeed.cli.outputs import check_output, run_id
from wirespeed.errors import UsageError

if TYPE_CHECKING:
    from wirespeed.store.records import RunRecord


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    export = sub.add_parser(
        "export",
        help="write runs or cards as one bundle file to share (.wsr)",
        description="Write stored runs (a card is one run) into one self-contained, "
        "versioned, compressed file: every trial's raw tool output, measurements, "
        "findings and samples, the plan, the provenance, each host's identity and the "
        "run's verdict. Host names, addresses, user names and SSH config paths become "
        "stable pseudonyms (192.0.2.1, host1, user1) unless --keep-names. `wirespeed "
        "import FILE` brings it into another store; `wirespeed compare FILE FILE` "
        "compares bundles without importing them (docs/sharing.md).",
    )
    export.add_argument(
        "runs",
        nargs="*",
        type=run_id,
        metavar="RUN",
        help="run or card ids (`wirespeed runs`; default: the latest run)",
    )
    export.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="FILE",
        help="the bundle to write (FILE.wsr; - for stdout)",
    )
    add_flag(
        export,
        "--keep-names",
        help="keep host names, addresses, user names and SSH config paths as they are",
    )
    return export


def bundle_runs(records: list[RunRecord], *, keep_names: bool) -> list[dict[str, Any]]:
    """The records as a bundle's runs: pseudonymized unless keep_names, each with its id,
    identity and verdict (worked out from the run as it is written)."""
    from wirespeed.analysis.identity import run_identity
    from wirespeed.analysis.validity import run_verdict
    from wirespeed.store.bundle import run_document, run_record, with_id
    from wirespeed.store.pseudonyms import pseudonymized

    runs = [run_document(record) for record in records]
    if not keep_names:
        runs = pseudonymized(runs)
    done = []
    for number, content in enumerate(runs, start=1):
        run = with_id(content)
        written = run_record(run, number)
        run["identity"] = run_identity(written)
        run["verdict"] = run_verdict(written).as_json()
        done.append(run)
    return done


def execute(args: argparse.Namespace, env: Environment) -> int:
    from wirespeed.store import Store
    from wirespeed.store.bundle import SUFFIX, pack

    to_stdout = args.output == "-"
    target = None if to_stdout else check_output(args.output, "-o", f"runs{SUFFIX}")
    if target is not None and target.suffix != SUFFIX:
        env.warn(f"-o {args.output}: a bundle's name ends in {SUFFIX}, which `import` knows")
    ids: list[int] = list(args.runs)
    if len(set(ids)) != len(ids):
        raise UsageError("a run is given twice", hint="give each run once")
    store = Store.open(args.db, read_only=True)
    try:
        if not ids:
            latest = store.list_runs()
            if not latest:
                raise UsageError(
                    "no runs stored yet", hint="`wirespeed run PLAN` or `wirespeed card` makes one"
                )
            ids = [latest[-1].id]
        records = [store.load_run(run, intervals=True, outputs=True, commands=True) for run in ids]
    finally:
        store.close()
    runs = bundle_runs(records, keep_names=args.keep_names)
    data = pack(runs, names="kept" if args.keep_names else "pseudonyms")
    if target is None:
        buffer = getattr(env.stdout, "buffer", None)
        if env.stdout_is_tty or buffer is None:
            raise UsageError(
                "-o -: a bundle is compressed data, not written to a terminal",
                hint="redirect stdout to a file, or give -o FILE.wsr",
            )
        env.stdout.flush()
        buffer.write(data)
        buffer.flush()
        return ExitStatus.OK
    _write_atomically(target, data)
    names = "names kept" if args.keep_names else "names as pseudonyms"
    which = ", ".join(str(i) for i in ids)
    env.info(
        f"run{'s' if len(ids) > 1 else ''} {which} written to {target} "
        f"({len(data) / 1024:.0f} KiB, {names}); `wirespeed import {target}` reads it"
    )
    return ExitStatus.OK


def _write_atomically(target: Path, data: bytes) -> None:
    """The whole file or none: a bundle cut short by a full disk must not stay behind."""
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)  # as open() would have made it
        os.replace(temporary, target)
    except OSError as error:
        Path(temporary).unlink(missing_ok=True)
        raise UsageError(f"-o {target}: cannot write it: {error.strerror or error}") from None
