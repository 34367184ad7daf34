"""Adversarial cases: what a new user (or someone trying to break it) types, run through
the real `wirespeed` command one after the other. Each case says which exit statuses are
right and what its output must (or must never) say; after each, the machine must be as
it was: no namespace, nftables table, tool process or soak chunk file left, and never a
traceback. Needs root (lab cases build namespaces).

    sudo .venv/bin/python -m benchmarks.adversarial [--only NAME,...] [--list]

Prints one line per case and a JSON summary; exit status 1 if any case went wrong.
"""

from __future__ import annotations

import argparse
import dataclasses
import glob
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.common import emit

WIRESPEED = [str(Path(sys.executable).with_name("wirespeed"))]
TOOLS = ("iperf", "iperf3", "irtt", "dropbear", "openvpn", "wireguard-go", "trafgen", "openssl")

FORWARDING_LAB = """
title: adversarial forwarding
lab: {{link: gbe, dut: {{forward_pps: 15000}}}}
paths: [{{name: R, topology: {topology}}}]
tests:
  - id: fwd
    tool: forwarding
    options: {options}
"""

SOAK = """
title: adversarial soak
lab: {{link: gbe{dut}}}
path: {{name: R, topology: router}}
soak:
  duration: {duration}
  chunk: 10s
  faults: {faults}
"""


@dataclasses.dataclass(frozen=True)
class Case:
    name: str
    argv: list[str]  # after `wirespeed`; {plan} and {db} and {tmp} are filled in
    exits: tuple[int, ...]
    plan: str | None = None
    must: tuple[str, ...] = ()  # regexes the combined output must match
    never: tuple[str, ...] = ()  # regexes it must not match
    before: Callable[[Path], None] | None = None  # set-up in the case's directory
    timeout: float = 300


def _two_runs_first(tmp: Path) -> None:
    """A stored run whose expectation failed: for `run --resume` of a complete run."""
    plan = tmp / "expect.yaml"
    plan.write_text(
        "title: x\nlab: {link: fe}\npaths: [{name: R, topology: router}]\n"
        "tests: [{id: t, tool: iperf3, duration: 2, expect: {goodput: '>= 900M'}}]\n"
    )
    subprocess.run(
        [*WIRESPEED, "run", str(plan), "--db", str(tmp / "adv.db"), "-q", "--lab-name", "adv"],
        capture_output=True,
        check=False,
        timeout=120,
    )


CASES = [
    Case(
        "search-subsecond-phases",
        ["run", "{plan}", "--db", "{db}", "--lab-name", "adv"],
        (0,),
        FORWARDING_LAB.format(
            topology="router",
            options="{frame_sizes: [1518], initial_duration: 0.3, final_duration: 2}",
        ),
        must=(r"1[45],\d{3}",),
        never=(r"no throughput found",),
    ),
    Case(
        "search-max-rate-below-capacity",
        ["run", "{plan}", "--db", "{db}", "--lab-name", "adv"],
        (0,),
        FORWARDING_LAB.format(
            topology="router",
            options="{frame_sizes: [1518], max_rate: 5kpps, final_duration: 2}",
        ),
        must=(r"≥ ?5,000",),
    ),
    Case(
        "search-duration-sum-too-small",
        ["check", "{plan}"],
        (2,),
        FORWARDING_LAB.format(topology="router", options="{duration_sum: 5}"),
        must=(r"plan\.yaml:\d+",),
    ),
    Case(
        "search-initial-longer-than-final",
        ["check", "{plan}"],
        (2,),
        FORWARDING_LAB.format(topology="router", options="{initial_duration: 20}"),
        must=(r"plan\.yaml:\d+",),
    ),
    Case(
        "search-bad-option-names-the-test",
        ["check", "{plan}"],
        (2,),
        FORWARDING_LAB.format(
            topology="router", options="{initial_duration: 5, final_duration: 2}"
        ),
        must=(r"test 'fwd'",),
        never=(r"a test:",),
    ),
    Case(
        "two-local-hosts-through-a-dut-refused",
        ["check", "{plan}"],
        (2,),
        "hosts:\n  lan-side: {address: 192.168.1.50}\n  wan-side: {address: 10.0.0.3}\n"
        "  router: {address: 10.0.0.1, ssh: root@192.168.1.1}\n"
        "paths: [{name: R, topology: router, client: lan-side, server: wan-side, dut: router}]\n"
        "tests: [{id: 1}]\n",
        must=(r"plan\.yaml:\d+", r"loopback", r"port: PORT_A"),
    ),
    Case(
        "udp-length-over-a-datagram",
        ["run", "-c", "lab", "-u", "-l", "70000", "--db", "{db}"],
        (2,),
        must=(r"65,?507",),
    ),
    Case(
        "resume-of-a-complete-run-gives-its-verdict",
        ["run", "--resume", "1", "--db", "{db}"],
        (5,),
        before=_two_runs_first,
    ),
    Case(
        "report-of-a-store-that-does-not-exist",
        ["report", "--db", "{tmp}/typo.db"],
        (2,),
        must=(r"does not exist|no such",),
    ),
    Case(
        "soak-report-to-a-missing-directory",
        ["soak", "--report", "1", "--db", "{db}", "-o", "/nonexistent/x.md"],
        (2,),
    ),
    Case(
        "soak-run-to-a-missing-directory-refused-up-front",
        ["soak", "{plan}", "--db", "{db}", "-o", "/nonexistent/x.md"],
        (2,),
        SOAK.format(dut="", duration="20s", faults="[]"),
        timeout=30,
    ),
    Case(
        "soak-takes-the-ssh-options",
        ["soak", "--help"],
        (0,),
        must=(r"--ssh-config", r"--accept-new-host-key"),
    ),
    Case(
        "check-reads-a-soak-plan-as-one",
        ["check", "{plan}"],
        (0,),
        SOAK.format(dut="", duration="20s", faults="[]"),
        never=(r"did you mean 'paths'",),
    ),
    Case(
        "soak-fault-after-the-end-refused",
        ["check", "{plan}"],
        (2,),
        SOAK.format(dut="", duration="20s", faults="[{at: 30s, down: 2s, kind: link}]"),
        must=(r"plan\.yaml:\d+",),
        never=(r"Field required|less than or equal",),
    ),
    Case(
        "soak-run-plan-given-to-soak",
        ["soak", "{plan}", "--db", "{db}"],
        (2,),
        FORWARDING_LAB.format(topology="router", options="{frame_sizes: [1518]}"),
        never=(r"Field required",),
    ),
    Case(
        "soak-fault-still-active-at-the-end-is-reported",
        ["soak", "{plan}", "--db", "{db}", "--lab-name", "adv"],
        (0,),
        SOAK.format(dut="", duration="20s", faults="[{at: 5s, down: 30s, kind: link}]"),
        must=(r"1 outage",),
        timeout=120,
    ),
    Case(
        "soak-honours-the-dut-packet-limit",
        ["soak", "{plan}", "--db", "{db}", "--lab-name", "adv"],
        (0, 2),
        SOAK.format(dut=", dut: {forward_pps: 150}", duration="10s", faults="[]"),
        never=(r"\b0 of \d+ probes lost",),
        timeout=120,
    ),
]


def _output(argv: list[str]) -> str:
    return subprocess.run(argv, capture_output=True, text=True, check=False).stdout


def _leftovers() -> dict[str, list[str]]:
    namespaces = _output(["ip", "netns", "list"])
    procs = []
    for tool in TOOLS:
        procs += [f"{tool}:{pid}" for pid in _output(["pgrep", "-x", tool]).split()]
    return {
        "namespaces": sorted(line.split()[0] for line in namespaces.splitlines() if line),
        "nft": sorted(_output(["nft", "list", "tables"]).splitlines()),
        "processes": sorted(procs),
        "chunk files": sorted(glob.glob("/tmp/wirespeed-soak-*.json")),
    }


def run_case(case: Case) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="wirespeed-adv-") as name:
        tmp = Path(name)
        plan = tmp / "plan.yaml"
        if case.plan is not None:
            plan.write_text(case.plan.lstrip())
        if case.before is not None:
            case.before(tmp)
        values = {"plan": str(plan), "db": str(tmp / "adv.db"), "tmp": str(tmp)}
        argv = [*WIRESPEED, *(word.format(**values) for word in case.argv)]
        env = {**os.environ, "XDG_DATA_HOME": str(tmp / "data"), "COLUMNS": "120"}
        before = _leftovers()
        started = time.monotonic()
        try:
            done = subprocess.run(
                argv, capture_output=True, text=True, env=env, timeout=case.timeout, check=False
            )
            status, output = done.returncode, done.stdout + done.stderr
        except subprocess.TimeoutExpired as expired:
            status, output = -1, f"timed out after {case.timeout} s: {expired}"
        seconds = time.monotonic() - started
        after = _leftovers()
    problems: list[str] = []
    if status not in case.exits:
        problems.append(f"exit {status}, expected {case.exits}")
    if "Traceback" in output:
        problems.append("a traceback")
    problems += [
        f"does not say {pattern!r}" for pattern in case.must if not re.search(pattern, output)
    ]
    problems += [f"says {pattern!r}" for pattern in case.never if re.search(pattern, output)]
    for kind, items in after.items():
        new = sorted(set(items) - set(before[kind]))
        if new:
            problems.append(f"left {kind}: {', '.join(new)}")
    return {
        "case": case.name,
        "exit": status,
        "seconds": round(seconds, 1),
        "problems": problems,
        "output_tail": output.strip().splitlines()[-3:] if problems else [],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="comma-separated case names")
    parser.add_argument("--list", action="store_true", help="list the cases and exit")
    args = parser.parse_args()
    if args.list:
        print("\n".join(case.name for case in CASES))
        return 0
    chosen = [c for c in CASES if not args.only or c.name in args.only.split(",")]
    results = []
    for case in chosen:
        result = run_case(case)
        results.append(result)
        problems = result["problems"]
        assert isinstance(problems, list)
        verdict = "WRONG: " + "; ".join(problems) if problems else "ok"
        print(f"{case.name}: exit {result['exit']} in {result['seconds']} s: {verdict}", flush=True)
    wrong = [r for r in results if r["problems"]]
    emit("adversarial", {"cases": len(results), "wrong": len(wrong), "results": wrong})
    return 1 if wrong else 0


if __name__ == "__main__":
    raise SystemExit(main())
