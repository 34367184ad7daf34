"""`wirespeed soak PLAN | --resume SOAK | --report [SOAK] | --compare [SOAK ...]`: hours
of a paced probe stream, its outages and the kernel events that came with them; a plan
with `variants:` soaks once per variant and compares them (docs/plan-format.md,
"Soak")."""

from __future__ import annotations

import argparse
import contextlib
import functools
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from wirespeed.cli.env import Environment
from wirespeed.cli.exit import ExitStatus, Terminated
from wirespeed.errors import UsageError, WirespeedError

if TYPE_CHECKING:
    from wirespeed.run.variants import VariantStates
    from wirespeed.soak.plan import SoakFile
    from wirespeed.soak.records import SoakHeader
    from wirespeed.soak.soak_runner import Progress, SoakHosts
    from wirespeed.store import Store


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    soak = sub.add_parser(
        "soak",
        help="a soak test: a paced probe stream for hours, its outages and kernel events",
    )
    soak.add_argument("plan", nargs="?", metavar="PLAN", help="soak plan file")
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
        "soak's variants, else the latest two)",
    )  # fmt: skip
    soak.add_argument(
        "--format", choices=["text", "markdown", "json", "html"], default=None,
        help="report format (default: text, or from -o's extension)",
    )  # fmt: skip
    soak.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE")
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

    with Store.open(args.db) as store:
        if args.report is not None:
            return _report(store, args.report or None, args, env)
        if args.compare is not None:
            return _compare(store, args.compare, args, env)
        if args.resume is not None:
            return _resume(store, args.resume, args, env)
        if args.plan is None:
            raise UsageError("wirespeed soak needs a PLAN, --resume SOAK, --report or --compare")
        return _start(store, args, env)


def _read_plan(path: str) -> str:
    try:
        return sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise UsageError(f"{path}: {error.strerror}") from None


def _start(store: Store, args: argparse.Namespace, env: Environment) -> int:
    from wirespeed.soak import records
    from wirespeed.soak.group import group_info, group_token
    from wirespeed.soak.plan import parse_soak_plan, soak_variants

    text = _read_plan(args.plan)
    plan = parse_soak_plan(text, args.plan)
    lab = None
    if plan.lab is not None and plan.path.client is None:
        from wirespeed.lab.naming import check_lab_name

        lab = check_lab_name(args.lab_name or f"soak-{plan.path.topology}")
    variants = soak_variants(plan)
    info: dict[str, object] = {"argv": getattr(args, "argv", [])}
    if variants:
        info |= group_info(variants, 0, group_token())
    soak_id = records.begin(store, plan.title, text, lab, info)
    _announce(soak_id, plan.soak.duration, info, env)
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
        return _next_variant(store, header, args, env)
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


def _next_variant(
    store: Store, header: SoakHeader, args: argparse.Namespace, env: Environment
) -> int:
    """--resume of a complete soak whose group has variants still to soak (the process
    was killed between two): the next one begins."""
    from wirespeed.soak.group import still_to_soak
    from wirespeed.soak.plan import parse_soak_plan

    rest = still_to_soak(store, header)
    if not rest:
        raise UsageError(f"soak {header.id} is complete")
    plan = parse_soak_plan(header.plan_text, f"soak {header.id}")
    soak_id = _begin_variant(store, header, plan, rest[0], args=args, env=env)
    return _run(
        store, soak_id=soak_id, text=header.plan_text, lab=header.lab, watched=0.0,
        position=0, env=env, args=args,
    )  # fmt: skip


def _begin_variant(
    store: Store,
    previous: SoakHeader,
    plan: SoakFile,
    name: str,
    *,
    args: argparse.Namespace,
    env: Environment,
) -> int:
    """A new stored soak for variant `name` of previous's group."""
    from wirespeed.soak import records
    from wirespeed.soak.group import group_info
    from wirespeed.soak.plan import soak_variants

    variants = soak_variants(plan)
    index = [variant.name for variant in variants].index(name)
    info: dict[str, object] = {"argv": getattr(args, "argv", [])}
    info |= group_info(variants, index, str(previous.info["group"]))
    soak_id = records.begin(store, plan.title, previous.plan_text, previous.lab, info)
    _announce(soak_id, plan.soak.duration, info, env)
    return soak_id


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


def _announce(soak_id: int, duration: float, info: dict[str, object], env: Environment) -> None:
    variant = info.get("variant")
    of = f" in variant {variant} ({len(info['variants'])} variants)" if variant else ""  # type: ignore[arg-type]
    env.stderr.write(f"soak {soak_id}: {duration:g} s of probes{of}\n")


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
    """Soak soak_id (from `watched` s on), then the variants of its group still to soak,
    each its own stored soak in the same lab; the group compared when more than one."""
    from wirespeed.soak import records
    from wirespeed.soak.group import still_to_soak, variant_of
    from wirespeed.soak.plan import parse_soak_plan, soak_variants
    from wirespeed.soak.setup import soak_hosts

    plan = parse_soak_plan(text, f"soak {soak_id}")
    variants = soak_variants(plan)
    by_name = {variant.name: variant for variant in variants}
    with contextlib.ExitStack() as stack:
        hosts = stack.enter_context(soak_hosts(plan, lab))
        states = stack.enter_context(_variant_states(store, hosts, env)) if variants else None
        while True:
            header = records.load_header(store, soak_id)
            assert header is not None
            variant = by_name.get(variant_of(header.info) or "")
            enter = None
            if states is not None and variant is not None:
                enter = functools.partial(states.enter, variant)
            _soak_one(
                store, soak_id, plan, hosts,
                env=env, args=args, watched=watched, position=position, enter=enter,
            )  # fmt: skip
            rest = still_to_soak(store, header)
            if not rest:
                break
            soak_id = _begin_variant(store, header, plan, rest[0], args=args, env=env)
            watched, position = 0.0, 0
    if variants:
        # The comparison goes to -o FILE itself (each variant's report went beside it),
        # where FILE's format is one a comparison has.
        _compare(store, [], args, env, latest=soak_id, to_file=False)
        if args.output and _format(args) != "html":
            _compare(store, [], args, env, latest=soak_id)
    return ExitStatus.OK


@contextlib.contextmanager
def _variant_states(store: Store, hosts: SoakHosts, env: Environment) -> Iterator[VariantStates]:
    """The variants' switcher for the soak's lab: what a killed wirespeed left changed is
    restored first, and the variant in force is undone when the block ends."""
    from wirespeed.run.variants import VariantStates, journal_for, recover_left_changes

    journal = journal_for(store)
    for said in recover_left_changes(journal):
        env.stderr.write(f"wirespeed: {said}\n")
    labs = {} if hosts.built_lab is None else {hosts.built_lab.name: hosts.built_lab}
    with VariantStates(journal, labs) as states:
        yield states


def _soak_one(
    store: Store,
    soak_id: int,
    plan: SoakFile,
    hosts: SoakHosts,
    *,
    env: Environment,
    args: argparse.Namespace,
    watched: float,
    position: int,
    enter: Callable[[], str | None] | None,
) -> None:
    """One stored soak, its status kept whatever happens, its summary told."""
    from wirespeed.soak import records
    from wirespeed.soak.soak_runner import run_soak

    status = "failed"
    try:
        if enter is not None and (problem := enter()) is not None:
            raise WirespeedError(problem)
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


def _tell(store: Store, soak_id: int, env: Environment, args: argparse.Namespace) -> None:
    from wirespeed.soak.group import variant_of
    from wirespeed.soak.render import render_text, summary_of

    summary = summary_of(store, soak_id)
    if summary is None:
        return
    env.stdout.write(render_text(summary))
    env.stdout.flush()
    if args.output:
        _write(summary, args, env, variant=variant_of(summary.header.info))


def _format(args: argparse.Namespace) -> str:
    """--format, else from -o's extension, else text."""
    if args.format:
        return str(args.format)
    suffix = Path(args.output).suffix if args.output else ""
    return {".md": "markdown", ".json": "json", ".html": "html"}.get(suffix, "text")


def variant_path(output: str, variant: str) -> Path:
    """Where a variant's report goes when a soak has several: soak.html becomes
    soak-mtu9000.html, so that one variant's report does not overwrite another's."""
    path = Path(output)
    return path.with_name(f"{path.stem}-{variant}{path.suffix}")


def _write(
    summary: object, args: argparse.Namespace, env: Environment, *, variant: str | None = None
) -> None:
    from wirespeed.soak.render import render

    fmt = _format(args)
    path = variant_path(args.output, variant) if variant else Path(args.output)
    path.write_text(render(summary, fmt), encoding="utf-8")  # type: ignore[arg-type]
    env.stderr.write(f"wrote {path}\n")


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
        env.stdout.write(render(summary, _format(args)))
    return ExitStatus.OK


def _compare(
    store: Store,
    soak_ids: list[int],
    args: argparse.Namespace,
    env: Environment,
    *,
    latest: int | None = None,
    to_file: bool = True,
) -> int:
    """Soaks side by side: those named, else the latest soak's variants, else the latest
    two soaks."""
    from wirespeed.soak import records
    from wirespeed.soak.compare import columns, render_comparison
    from wirespeed.soak.group import group_of
    from wirespeed.soak.render import summary_of

    fmt = _format(args) if to_file else (args.format or "text")
    if fmt == "html":
        raise UsageError("--compare writes text, markdown or json", hint="--format markdown")
    if not soak_ids:
        header = records.load_header(store, latest)
        if header is None:
            raise UsageError("no soak in the store")
        group = group_of(store, header)
        soak_ids = (
            [soak.id for soak in group]
            if len(group) > 1
            else [soak.id for soak in records.list_soaks(store)[-2:]]
        )
    if len(soak_ids) < 2:
        raise UsageError("--compare needs two soaks", hint="wirespeed soak --compare A B")
    summaries = []
    for soak_id in soak_ids:
        summary = summary_of(store, soak_id, threshold=args.outage)
        if summary is None:
            raise UsageError(f"no soak {soak_id} in the store")
        summaries.append(summary)
    text = render_comparison(columns(summaries), fmt)
    if to_file and args.output:
        Path(args.output).write_text(text, encoding="utf-8")
        env.stderr.write(f"wrote {args.output}\n")
    else:
        env.stdout.write(text)
    return ExitStatus.OK
