"""`wirespeed card TARGET`: a device's whole character on one page, in one stored run.

The card is a plan (card/plan_text.py) run as `run` runs any plan, and a summary read from
its report (card/summary.py), shown before the report's own sections.
"""

from __future__ import annotations

import argparse
import math
from typing import TYPE_CHECKING, Any

from wirespeed.cli.env import Environment
from wirespeed.cli.exit import ExitStatus
from wirespeed.cli.measuring import (
    expectations_status,
    measure,
    settings_of,
    ssh_settings,
    watched_roles,
)
from wirespeed.cli.options import add_flag, add_output_files
from wirespeed.cli.outputs import output_targets, write_targets
from wirespeed.errors import UsageError

if TYPE_CHECKING:
    from wirespeed.card.plan_text import CardOptions
    from wirespeed.card.target import CardBench
    from wirespeed.plan import Plan
    from wirespeed.report.model import Report
    from wirespeed.store.records import RunRecord

FORMATS = ("terminal", "markdown", "json", "html")


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    card = sub.add_parser(
        "card",
        help="a device's card: throughput, forwarding rate, latency, VPN, crypto, clocks "
        "and heat, in one run on one page",
        description="Run every part of a device card as one plan, stored as one run, and "
        "show it on one page: a summary in words and numbers, what the device is good "
        "for, then a section per part. A part whose program the device lacks is skipped "
        "with a line naming the package; it never fails the card (docs/card.md).",
    )
    card.add_argument(
        "target",
        metavar="TARGET",
        help="lab, lab:TOPOLOGY[:LINK] (lab:nat:fe; default nat, gbe), a plan file (its "
        "hosts and paths), or a device user@host[:port] over SSH",
    )
    profile = card.add_mutually_exclusive_group()
    profile.add_argument(
        "--quick",
        dest="profile",
        action="store_const",
        const="quick",
        help="short parts, once each: about 5 minutes on a lab DUT (the default)",
    )
    profile.add_argument(
        "--full",
        dest="profile",
        action="store_const",
        const="full",
        help="the seeds' durations, three repetitions for spread",
    )
    card.add_argument(
        "--duration",
        type=float,
        metavar="SECONDS",
        help="every traffic test and a search's full-length trials this long (a quick look)",
    )
    card.add_argument(
        "--frame-sizes",
        metavar="SIZES",
        help="the forwarding search's frame sizes with FCS, comma-separated (default 64,512,1518)",
    )
    card.add_argument("--repeat", type=int, metavar="N", help="repetitions of every part")
    card.add_argument(
        "--skip",
        metavar="PARTS",
        help="leave parts out, comma-separated: throughput, forwarding, latency, vpn, compute",
    )
    add_flag(
        card,
        "--tuned",
        help="run the network parts again with `tune suggest`'s changes applied "
        "(journaled, restored after) and show each figure stock → tuned",
    )
    card.add_argument(
        "--expect",
        metavar="FILE",
        help="what the card's figures must reach: YAML of test id -> expect: mapping "
        "(docs/card.md); exit 5 when one is missed",
    )
    lab = card.add_argument_group("the lab (TARGET lab...)")
    lab.add_argument(
        "--forward-pps", type=int, metavar="N", help="the lab DUT forwards N packets/s at most"
    )
    lab.add_argument(
        "--forward-rate", metavar="RATE", help="the lab DUT forwards RATE at most (100mbit)"
    )
    lab.add_argument("--queue", metavar="DELAY", help="the bottleneck's queue holds DELAY (40ms)")
    lab.add_argument("--mtu", type=int, help="MTU of every lab link (default 1500)")
    lab.add_argument("--lab-name", metavar="NAME", help="name the card's labs NAME-<topology>")
    lab.add_argument(
        "--lab-dut",
        choices=["netns", "ssh"],
        default="netns",
        help="reach the lab DUT in its namespace (default) or over SSH, as a real router",
    )
    device = card.add_argument_group("a device (TARGET user@host)")
    device.add_argument(
        "--client", metavar="HOST", help="the bench's client: here, an address or user@host"
    )
    device.add_argument(
        "--server",
        metavar="HOST",
        help="the bench's server, behind the device: an address or user@host",
    )
    device.add_argument(
        "--topology",
        choices=["router", "nat", "bridge", "endpoint"],
        help="what the device is between --client and --server (default nat)",
    )
    device.add_argument(
        "--link", metavar="LINK", help="the device's line rate: gbe, fe, 2.5gbe ..."
    )
    card.add_argument("--path", metavar="NAME", help="with a plan file: the path to measure")
    add_output_files(
        card,
        help="also write the card to FILE, in the format of its extension (.md .json .html "
        ".txt); repeat for several",
    )
    add_flag(card, "--json", help="print the card as JSON")
    add_flag(card, "--print-plan", help="print the card's plan and exit: nothing runs")
    card.add_argument(
        "--watch",
        default="dut",
        metavar="ROLES",
        help="hosts to sample during every trial: dut, client, server (default: dut)",
    )
    add_flag(card, "-q", "--quiet", help="no progress and no card: only the run id")
    return card


def _frame_sizes(text: str | None) -> tuple[int, ...] | None:
    if text is None:
        return None
    try:
        sizes = tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise UsageError(
            f"--frame-sizes {text}: give frame sizes in bytes, e.g. 64,512,1518"
        ) from None
    if not sizes:
        raise UsageError("--frame-sizes: give at least one size")
    return sizes


def _skips(text: str | None) -> dict[str, str]:
    from wirespeed.card.parts import SKIPPABLE

    if not text:
        return {}
    asked = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [part for part in asked if part not in SKIPPABLE]
    if unknown:
        raise UsageError(
            f"--skip {text}: no part {', '.join(unknown)}", hint=f"parts: {', '.join(SKIPPABLE)}"
        )
    return {part: f"{part}: left out (--skip)" for part in asked}


def card_options(args: argparse.Namespace, skipped: dict[str, str]) -> CardOptions:
    from wirespeed.card.plan_text import FRAME_SIZES, PROFILES, CardOptions

    if args.duration is not None and not math.isfinite(args.duration):
        raise UsageError(f"--duration {args.duration}: give a number of seconds, e.g. 2")
    if args.duration is not None and args.duration <= 0:
        raise UsageError(f"--duration must be positive, got {args.duration:g}")
    if args.repeat is not None and args.repeat < 1:
        raise UsageError(f"--repeat must be at least 1, got {args.repeat}")
    return CardOptions(
        profile=PROFILES[args.profile or "quick"],
        duration=args.duration,
        frame_sizes=_frame_sizes(args.frame_sizes) or FRAME_SIZES,
        repetitions=args.repeat,
        skipped=skipped,
    )


def bench_of(args: argparse.Namespace) -> CardBench:
    from wirespeed.card.target import Ends, LabOptions, card_bench
    from wirespeed.model import Topology

    return card_bench(
        args.target,
        LabOptions(args.forward_pps, args.forward_rate, args.queue, args.mtu),
        Ends(
            args.client,
            args.server,
            Topology(args.topology) if args.topology else None,
            args.link,
        ),
        args.path,
    )


def compose(args: argparse.Namespace, env: Environment) -> Plan:
    """The card's plan (card/compose.py), from its options; what it leaves out said on
    stderr. Its hosts are probed over SSH unless only its plan is printed."""
    from wirespeed.card.compose import compose_card

    bench = bench_of(args)
    return compose_card(
        bench, card_options(args, _skips(args.skip)), _typed(args), tuned=args.tuned,
        expect=args.expect, ssh=None if args.print_plan else lambda: ssh_settings(args, env),
        db=args.db, warn=env.warn, say=env.info,
    )  # fmt: skip


def _typed(args: argparse.Namespace) -> dict[str, str]:
    """The options that go into the card's plan, as given: what its problems name."""
    given = {
        "--duration": args.duration,
        "--repeat": args.repeat,
        "--forward-pps": args.forward_pps,
        "--forward-rate": args.forward_rate,
        "--queue": args.queue,
        "--mtu": args.mtu,
        "--frame-sizes": args.frame_sizes,
    }
    return {option: _number(value) if isinstance(value, float) else str(value)
            for option, value in given.items() if value is not None}  # fmt: skip


def _number(value: float) -> str:
    """A float option as a person writes it: 2, 0.5, 1000000000 (not 1e+09)."""
    return str(int(value)) if value.is_integer() and abs(value) < 1e18 else f"{value:g}"


def _estimate(plan: Plan) -> list[str]:
    """Each part's tests and roughly how long they take, for the line before the run."""
    from wirespeed.card.compose import part_seconds

    return [
        f"{key} ~{seconds / 60:.1f} min" if seconds >= 90 else f"{key} ~{seconds:.0f} s"
        for key, seconds in part_seconds(plan)
    ]


def execute(args: argparse.Namespace, env: Environment) -> int:
    targets = output_targets(args.output, None, FORMATS, "card")
    watched_roles(args.watch)  # a bad one: exit 2 before anything is probed or run
    plan = compose(args, env)
    for warning in plan.warnings:
        env.warn(str(warning))
    if args.print_plan:
        env.stdout.write(plan.text)
        return ExitStatus.OK
    from wirespeed.run.preflight import preflight
    from wirespeed.run.settings import trials_of
    from wirespeed.store import Store

    settings = settings_of(args)
    trials = trials_of(plan, settings)
    preflight(plan, trials)
    env.info("card: " + ", ".join(_estimate(plan)))
    store = Store.open(args.db)
    try:
        outcome = measure(
            env, store, plan, trials, settings, lab_name=args.lab_name,
            ssh=ssh_settings(args, env), argv=args.argv,
        )  # fmt: skip
        record = store.load_run(outcome.run_id, intervals="packed", outputs=True, commands=True)
    finally:
        store.close()
    report = show_card(args, env, record, targets)
    env.info(f"card stored as run {record.id}; `wirespeed report {record.id}` shows it again")
    below = expectations_status(report, env)
    if outcome.failed:
        env.error(f"{len(outcome.failed)} of {len(outcome.outcomes)} trials failed")
        return ExitStatus.FAILED
    return below


def show_card(
    args: argparse.Namespace, env: Environment, record: RunRecord, targets: list[Any]
) -> Report:
    """A card's run on stdout (JSON with --json, its id with -q) and in each -o file."""
    from wirespeed.card.output import card_report, render_card
    from wirespeed.card.summary import card_summary

    report = card_report(record)
    took = [
        f"{part.part.key} {part.seconds:.0f} s"
        for part in card_summary(report).parts
        if part.seconds is not None
    ]
    env.info("card parts took: " + ", ".join(took))
    if getattr(args, "row", False) or getattr(args, "row_header", False):
        print_row(args, env, report, record)  # on stdout instead of the card
    elif args.json:
        env.stdout.write(render_card("json", report, record))
    elif env.quiet:
        env.stdout.write(f"{record.id}\n")
    else:
        # At the terminal's width, as `run` shows its report (cli/env.py).
        env.stdout.write(render_card("terminal", report, record, env.console().width))
    write_targets(targets, lambda fmt: render_card(fmt, report, record), env.info, "card written")
    return report


def print_row(args: argparse.Namespace, env: Environment, report: Report, record: RunRecord) -> int:
    """--row (and --row-header): the card as a Markdown table row (card/row.py)."""
    from wirespeed.card.row import card_row, row_header
    from wirespeed.card.summary import card_summary

    if args.row_header:
        env.stdout.write(row_header())
    if args.row:
        env.stdout.write(card_row(card_summary(report), record))
    return ExitStatus.OK
