"""`wirespeed soak PLAN | --resume SOAK | --report [SOAK]`: hours of a paced probe
stream, its outages and the kernel events that came with them (docs/plan-format.md,
"Soak")."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from wirespeed.cli.env import Environment
from wirespeed.cli.exit import ExitStatus, Terminated
from wirespeed.errors import UsageError

if TYPE_CHECKING:
    from wirespeed.soak.soak_runner import Progress
    from wirespeed.store import Store


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    soak = sub.add_parser(
        "soak",
        help="a soak test: a paced probe stream for hours, its outages and kernel events",
    )
    soak.add_argument("plan", nargs="?", metavar="PLAN", help="soak plan file")
    soak.add_argument("--resume", type=int, metavar="SOAK", help="continue an unfinished soak")
    soak.add_argument(
        "--report", nargs="?", type=int, const=0, metavar="SOAK",
        help="report a stored soak (default: the latest)",
    )  # fmt: skip
    soak.add_argument(
        "--format", choices=["text", "markdown", "json", "html"], default=None,
        help="report format (default: text, or from -o's extension)",
    )  # fmt: skip
    soak.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE")
    soak.add_argument(
        "--outage", type=int, metavar="N",
        help="--report: an outage is N consecutive lost probes (default: the plan's)",
    )  # fmt: skip
    soak.add_argument(
        "--lab-name", metavar="NAME", help="name of the lab built (default soak-TOPOLOGY)"
    )
    return soak


def execute(args: argparse.Namespace, env: Environment) -> int:
    from wirespeed.store import Store

    with Store.open(args.db) as store:
        if args.report is not None:
            return _report(store, args.report or None, args, env)
        if args.resume is not None:
            return _resume(store, args.resume, args, env)
        if args.plan is None:
            raise UsageError("wirespeed soak needs a PLAN, --resume SOAK or --report")
        return _start(store, args, env)


def _read_plan(path: str) -> str:
    try:
        return sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise UsageError(f"{path}: {error.strerror}") from None


def _start(store: Store, args: argparse.Namespace, env: Environment) -> int:
    from wirespeed.soak import records
    from wirespeed.soak.plan import parse_soak_plan

    text = _read_plan(args.plan)
    plan = parse_soak_plan(text, args.plan)
    lab = None
    if plan.lab is not None and plan.path.client is None:
        from wirespeed.lab.naming import check_lab_name

        lab = check_lab_name(args.lab_name or f"soak-{plan.path.topology}")
    soak_id = records.begin(store, plan.title, text, lab, {"argv": getattr(args, "argv", [])})
    env.stderr.write(f"soak {soak_id}: {plan.soak.duration:g} s of probes\n")
    return _run(
        store, soak_id=soak_id, text=text, lab=lab, watched=0.0, position=0, env=env, args=args
    )


def _resume(store: Store, soak_id: int, args: argparse.Namespace, env: Environment) -> int:
    from wirespeed.process_owner import owner_alive
    from wirespeed.soak import records

    found = records.load(store, soak_id)
    if found is None:
        raise UsageError(f"no soak {soak_id} in the store")
    header, chunks = found
    if header.status == "complete":
        raise UsageError(f"soak {soak_id} is complete")
    if header.status == "running" and header.owner and owner_alive(header.owner):
        raise UsageError(f"soak {soak_id} is still running (process {header.owner})")
    watched = sum(chunk.watched for chunk in chunks)
    position = chunks[-1].position + 1 if chunks else 0
    env.stderr.write(f"soak {soak_id}: resuming after {watched:.0f} s\n")
    records.set_status(store, soak_id, "running")
    return _run(
        store,
        soak_id=soak_id,
        text=header.plan_text,
        lab=header.lab,
        watched=watched,
        position=position,
        env=env,
        args=args,
    )


def _progress_writer(env: Environment) -> Callable[[Progress], None]:
    last = [0.0]

    def show(progress: Progress) -> None:
        now = time.monotonic()
        if now - last[0] < (1.0 if env.stderr_is_tty else 60.0) or env.quiet:
            return
        last[0] = now
        left = max(0.0, progress.duration - progress.watched)
        outages = progress.outages
        said = f"{len(outages)} outage{'s' if len(outages) != 1 else ''} so far"
        if outages:
            when = time.strftime("%H:%M:%S", time.localtime(outages[-1].start))
            said += f" (last {outages[-1].duration:.2f} s at {when})"
        line = f"soak {_clock(progress.watched)} elapsed, {_clock(left)} left, {said}"
        env.stderr.write(("\r" + line + "\x1b[K") if env.stderr_is_tty else line + "\n")
        env.stderr.flush()

    return show


def _clock(seconds: float) -> str:
    whole = int(seconds)
    return f"{whole // 3600}:{whole % 3600 // 60:02d}:{whole % 60:02d}"


def _run(
    store: Store,
    *,
    soak_id: int,
    text: str,
    lab: str | None,
    watched: float,
    position: int,
    env: Environment,
    args: argparse.Namespace,
) -> int:
    from wirespeed.soak import records
    from wirespeed.soak.plan import parse_soak_plan
    from wirespeed.soak.setup import soak_hosts
    from wirespeed.soak.soak_runner import run_soak

    plan = parse_soak_plan(text, f"soak {soak_id}")
    status = "failed"
    try:
        with soak_hosts(plan, lab) as hosts:
            run_soak(
                store, soak_id, plan.soak, hosts,
                watched=watched, position=position, progress=_progress_writer(env),
            )  # fmt: skip
        status = "complete"
    except (KeyboardInterrupt, Terminated):
        status = "interrupted"  # the committed chunks are kept: `--resume` continues
        raise
    finally:
        if env.stderr_is_tty:
            env.stderr.write("\n")
        records.set_status(store, soak_id, status)
        _tell(store, soak_id, env, args)
    return ExitStatus.OK


def _tell(store: Store, soak_id: int, env: Environment, args: argparse.Namespace) -> None:
    from wirespeed.soak.render import render_text, summary_of

    summary = summary_of(store, soak_id)
    if summary is None:
        return
    env.stdout.write(render_text(summary))
    env.stdout.flush()
    if args.output:
        _write(summary, args, env)


def _write(summary: object, args: argparse.Namespace, env: Environment) -> None:
    from wirespeed.soak.render import render

    fmt = args.format or {".md": "markdown", ".json": "json", ".html": "html"}.get(
        Path(args.output).suffix, "text"
    )
    Path(args.output).write_text(render(summary, fmt), encoding="utf-8")  # type: ignore[arg-type]
    env.stderr.write(f"wrote {args.output}\n")


def _report(store: Store, soak_id: int | None, args: argparse.Namespace, env: Environment) -> int:
    from wirespeed.soak.render import render, summary_of

    if args.outage is not None and args.outage < 1:
        raise UsageError("--outage: at least 1 lost probe")
    summary = summary_of(store, soak_id, threshold=args.outage)
    if summary is None:
        raise UsageError("no such soak in the store" if soak_id else "no soak in the store")
    if args.output:
        _write(summary, args, env)
    else:
        env.stdout.write(render(summary, args.format or "text"))
    return ExitStatus.OK
