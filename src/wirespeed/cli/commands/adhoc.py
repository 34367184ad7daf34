"""The plan `wirespeed run` runs: from -c HOST and iperf's options, a file, a built-in
plan's name, or stdin; and which options go together."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from wirespeed.errors import UsageError

if TYPE_CHECKING:
    from wirespeed.plan import Plan

# dest -> the option as typed: the options that only make sense with -c.
ADHOC_OPTIONS = {
    "adhoc_udp": "-u",
    "adhoc_rate": "-b",
    "adhoc_length": "-l",
    "adhoc_parallel": "-P",
    "adhoc_window": "-w",
    "adhoc_time": "-t",
    "adhoc_reverse": "-R",
    "adhoc_bidir": "--bidir",
    "adhoc_tool": "--tool",
}


def given_adhoc_options(args: argparse.Namespace) -> list[str]:
    return [
        flag for dest, flag in ADHOC_OPTIONS.items() if getattr(args, dest) not in (None, False)
    ]


def plan_to_run(args: argparse.Namespace) -> Plan:
    """The plan of `wirespeed run` (not --resume), its options checked first."""
    given = given_adhoc_options(args)
    if args.adhoc_host is None:
        if given:
            raise UsageError(
                f"{' '.join(given)}: iperf's options describe one test and go with -c HOST; "
                "a plan's tests say how they run",
                hint=f"wirespeed run -c HOST {' '.join(given)} ...  (HOST: lab, lab:router:fe, "
                "user@device)",
            )
        if args.plan is None:
            raise UsageError(
                "give a PLAN file (or a built-in plan's name, or - for stdin), -c HOST for "
                "one test, or --resume RUN to continue a run",
                hint="wirespeed plans  (the built-in plans);  wirespeed run -c lab -t 5",
            )
        from wirespeed.plan.sources import plan_from_argument

        return plan_from_argument(args.plan, sys.stdin.buffer)
    if args.plan is not None:
        raise UsageError(
            f"give a PLAN or -c HOST, not both (PLAN {args.plan!r} and -c {args.adhoc_host})",
            hint="-c runs one test of its own; a plan's tests are in the plan",
        )
    if args.adhoc_reverse and args.adhoc_bidir:
        raise UsageError(
            "-R and --bidir cannot both be given: -R makes the server send, --bidir sends "
            "both ways at once",
            hint="choose one",
        )
    from wirespeed.model import Tool
    from wirespeed.plan.adhoc import AdhocTest, adhoc_plan

    return adhoc_plan(
        AdhocTest(
            host=args.adhoc_host,
            tool=Tool(args.adhoc_tool or Tool.IPERF3),
            udp=args.adhoc_udp,
            rate=args.adhoc_rate,
            length=args.adhoc_length,
            parallel=args.adhoc_parallel,
            window=args.adhoc_window,
            time=args.adhoc_time,
            reverse=args.adhoc_reverse,
            bidir=args.adhoc_bidir,
            repeat=args.repeat,
        )
    )
