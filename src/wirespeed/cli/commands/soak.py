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

from wirespeed.cli.commands.run import ssh_settings
from wirespeed.cli.env import Environment
from wirespeed.cli.exit import ExitStatus, Terminated
from wirespeed.cli.outputs import OutputTarget, output_targets, write_output
from wirespeed.errors import UsageError, WirespeedError

if TYPE_CHECKING:
    from wirespeed.hosts.ssh_connection import SshSettings
    from wirespeed.run.variants import VariantStates
    from wirespeed.soak.plan import SoakFile
    from wirespeed.soak.records import SoakHeader
    from wirespeed.soak.soak_runner import Progress, SoakHosts
    from wirespeed.soak.summary import SoakSummary
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
    soak.add_argument(
        "-o", "--output", action="append", metavar="FILE",
        help="write the report to FILE, in the format of its extension (.md .json .html "
        ".txt: the terminal's text); repeat for several files",
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
    if comparing and args.format == "html":
        raise UsageError("--compare writes text, markdown or json", hint="--format markdown")
    # Every -o is checked before anything is read or measured (`report -o` does the same).
    targets = output_targets(
        args.output, _given_format(args), COMPARE_FORMATS if comparing else FORMATS, "soak"
    )
    if reading:
        with Store.open(args.db, read_only=True) as store:
            if args.report is not None:
                return _report(store, args.report or None, targets, args, env)
            return _compare(store, args.compare, args, env, targets=targets)
    # The plan and --ssh-config are checked before the store is opened (or made).
    ssh = ssh_settings(args, env)
    if args.resume is not None:
        with Store.open(args.db) as store:
            return _resume(store, args.resume, targets, args, env, ssh=ssh)
    from wirespeed.soak.plan import parse_soak_plan

    text = _read_plan(args.plan)
    plan = parse_soak_plan(text, "<stdin>" if args.plan == "-" else args.plan)
    with Store.open(args.db) as store:
        return _start(store, text, plan, targets, args, env=env, ssh=ssh)


# The formats of a soak's report and of a comparison of soaks, in outputs.py's words
# ("terminal" is the text format).
FORMATS = ("terminal", "markdown", "json", "html")
COMPARE_FORMATS = ("terminal", "markdown", "json")


def _given_format(args: argparse.Namespace) -> str | None:
    return "terminal" if args.format == "text" else args.format


def _soak_format(fmt: str) -> str:
    """A format of outputs.py as the soak's renderers name it."""
    return "text" if fmt == "terminal" else fmt


def _read_plan(path: str) -> str:
    try:
        return sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise UsageError(f"{path}: {error.strerror}") from None
    except UnicodeDecodeError as error:
        raise UsageError(f"{path}: not UTF-8 text (byte {error.start})") from None


def _start(
    store: Store,
    text: str,
    plan: SoakFile,
    targets: list[OutputTarget],
    args: argparse.Namespace,
    *,
    env: Environment,
    ssh: SshSettings,
) -> int:
    from wirespeed.soak import records
    from wirespeed.soak.group import group_info, group_token
    from wirespeed.soak.plan import soak_variants

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
        store, soak_id=soak_id, text=text, lab=lab, watched=0.0, position=0, env=env,
        args=args, targets=targets, ssh=ssh, rename=args.lab_name is None,
    )  # fmt: skip


def _resume(
    store: Store,
    soak_id: int,
    targets: list[OutputTarget],
    args: argparse.Namespace,
    env: Environment,
    *,
    ssh: SshSettings,
) -> int:
    from wirespeed.process_owner import owner_alive
    from wirespeed.soak import records

    found = records.load(store, soak_id)
    if found is None:
        raise UsageError(f"no soak {soak_id} in the store")
    header, chunks = found
    if header.status == "complete":
        return _next_variant(store, header, targets, args, env, ssh=ssh)
    if header.status == "running" and header.owner and owner_alive(header.owner):
        raise UsageError(
            f"soak {soak_id} is still running: {_who(header.owner)}",
            hint="wait until it ends, or stop that process (Ctrl-C keeps what it measured)",
        )
    watched = sum(chunk.watched for chunk in chunks)
    position = chunks[-1].position + 1 if chunks else 0
    env.stderr.write(f"soak {soak_id}: resuming after {watched:.0f} s\n")
    records.set_status(store, soak_id, "running")
    return _run(
        store, soak_id=soak_id, text=header.plan_text, lab=header.lab, watched=watched,
        position=position, env=env, args=args, targets=targets, ssh=ssh, rename=True,
    )  # fmt: skip


def _who(owner: str) -> str:
    """Who holds a soak, in words: 'PID 4242 (wirespeed soak plan.yaml)' on this
    machine, 'process 4242 on lab1' on another."""
    import socket

    from wirespeed.lab.record import describe_owner as describe_local
    from wirespeed.process_owner import describe_owner

    hostname, _, rest = owner.partition("/")
    pid = rest.partition("/")[2].partition("/")[0]
    if hostname == socket.gethostname() and pid.isdigit():
        return describe_local(pid)
    return describe_owner(owner)


def _remove_left_outputs(env: Environment) -> None:
    """The chunk files a killed soak left in /tmp (each up to a few MB), gone before
    another soak begins: those of soaks that no longer run."""
    from wirespeed.soak.stream import remove_left_outputs

    for path in remove_left_outputs():
        env.info(f"removed {path}, left by a soak that was killed")


def _next_variant(
    store: Store,
    header: SoakHeader,
    targets: list[OutputTarget],
    args: argparse.Namespace,
    env: Environment,
    *,
    ssh: SshSettings,
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
        position=0, env=env, args=args, targets=targets, ssh=ssh, rename=True,
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
    previous = records.load_header(store, previous.id) or previous  # its lab as built
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
    targets: list[OutputTarget],
    ssh: SshSettings,
    rename: bool,
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
        try:
            _remove_left_outputs(env)
            hosts = stack.enter_context(soak_hosts(plan, lab, ssh=ssh, rename=rename))
            if hosts.lab is not None and hosts.lab != lab:
                for name, owner in hosts.passed_over:
                    env.info(f"lab {name} is in use by {_who_of_lab(owner)}")
                env.info(f"soak {soak_id}: built the lab {hosts.lab} instead")
                records.set_lab(store, soak_id, hosts.lab)
            states = stack.enter_context(_variant_states(store, hosts, env)) if variants else None
        except BaseException as error:
            # Nothing streamed: the soak is not left `running`, for --report to pick.
            interrupted = isinstance(error, (KeyboardInterrupt, Terminated))
            records.set_status(store, soak_id, "interrupted" if interrupted else "failed")
            raise
        while True:
            header = records.load_header(store, soak_id)
            assert header is not None
            variant = by_name.get(variant_of(header.info) or "")
            enter = None
            if states is not None and variant is not None:
                enter = functools.partial(states.enter, variant)
            _soak_one(
                store, soak_id, plan, hosts,
                env=env, targets=targets, watched=watched, position=position, enter=enter,
            )  # fmt: skip
            rest = still_to_soak(store, header)
            if not rest:
                break
            soak_id = _begin_variant(store, header, plan, rest[0], args=args, env=env)
            watched, position = 0.0, 0
    if variants:
        # The comparison on stdout, and in each -o FILE whose format a comparison has
        # (each variant's report went beside it).
        _compare(store, [], args, env, latest=soak_id, targets=[], shown="text")
        files = [target for target in targets if target.format in COMPARE_FORMATS]
        if files:
            _compare(store, [], args, env, latest=soak_id, targets=files)
    return ExitStatus.OK


def _who_of_lab(owner: str) -> str:
    from wirespeed.lab.record import describe_owner

    return describe_owner(owner)


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
    targets: list[OutputTarget],
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
        _tell(store, soak_id, env, targets)


def _tell(store: Store, soak_id: int, env: Environment, targets: list[OutputTarget]) -> None:
    from wirespeed.soak.group import variant_of
    from wirespeed.soak.render import render_text, summary_of

    summary = summary_of(store, soak_id)
    if summary is None:
        return
    env.stdout.write(render_text(summary))
    env.stdout.flush()
    _write(summary, targets, env, variant=variant_of(summary.header.info))


def variant_path(output: str | Path, variant: str) -> Path:
    """Where a variant's report goes when a soak has several: soak.html becomes
    soak-mtu9000.html, so that one variant's report does not overwrite another's."""
    path = Path(output)
    return path.with_name(f"{path.stem}-{variant}{path.suffix}")


def _write(
    summary: SoakSummary,
    targets: list[OutputTarget],
    env: Environment,
    *,
    variant: str | None = None,
) -> None:
    from wirespeed.soak.render import render

    for target in targets:
        path = variant_path(target.path, variant) if variant else target.path
        write_output(path, render(summary, _soak_format(target.format)), "-o")
        env.stderr.write(f"wrote {path}\n")


def _report(
    store: Store,
    soak_id: int | None,
    targets: list[OutputTarget],
    args: argparse.Namespace,
    env: Environment,
) -> int:
    from wirespeed.soak.render import render, summary_of

    summary = summary_of(store, soak_id, threshold=args.outage)
    if summary is None:
        raise UsageError("no such soak in the store" if soak_id else "no soak in the store")
    if targets:
        _write(summary, targets, env)
    else:
        env.stdout.write(render(summary, args.format or "text"))
    return ExitStatus.OK


def _compare(
    store: Store,
    soak_ids: list[int],
    args: argparse.Namespace,
    env: Environment,
    *,
    latest: int | None = None,
    targets: list[OutputTarget],
    shown: str | None = None,
) -> int:
    """Soaks side by side: those named, else the latest soak's variants, else the latest
    two soaks (of those that streamed); to the targets, else to stdout (in `shown`, else
    --format's)."""
    from wirespeed.soak import records
    from wirespeed.soak.compare import columns, render_comparison
    from wirespeed.soak.group import group_of
    from wirespeed.soak.render import summary_of

    if not soak_ids:
        header = records.load_header(store, latest if latest is not None else records.latest(store))
        if header is None:
            raise UsageError("no soak in the store")
        group = group_of(store, header)
        soak_ids = (
            [soak.id for soak in group]
            if len(group) > 1
            else [soak.id for soak in records.list_soaks(store, streamed=True)[-2:]]
        )
    if len(soak_ids) < 2:
        raise UsageError("--compare needs two soaks", hint="wirespeed soak --compare A B")
    summaries = []
    for soak_id in soak_ids:
        summary = summary_of(store, soak_id, threshold=args.outage)
        if summary is None:
            raise UsageError(f"no soak {soak_id} in the store")
        summaries.append(summary)
    found = columns(summaries)
    for target in targets:
        write_output(target.path, render_comparison(found, _soak_format(target.format)), "-o")
        env.stderr.write(f"wrote {target.path}\n")
    if not targets:
        env.stdout.write(render_comparison(found, shown or args.format or "text"))
    return ExitStatus.OK
