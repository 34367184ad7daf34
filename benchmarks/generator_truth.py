"""The search with tcpreplay against truths iperf2 cannot reach, at the plan's precision.

1. `wirespeed run` in a router lab (unshaped links) whose DUT forwards at most LIMIT
   packets/s (nftables), 64-byte frames, NDR, the plan's default trials (1 s first,
   10 s for the answer, 1 % width): with `generator: tcpreplay` (`cpus: 2` unless
   --cpus says otherwise), and with iperf2 (one process), whose
   answer must be its own ceiling ("generator-limited"), not the DUT's NDR.
2. Two client namespaces into one DUT (plain ip and nft) forwarding at most SENDERS_LIMIT
   packets/s: the search with both sending half of each load (tcpreplay), 10 s trials.

Prints each figure against its truth and the load average. Needs root, tcpreplay.

    sudo .venv/bin/python -m benchmarks.generator_truth [--limit 250000] [--cpus 2]
        [--senders-limit 100000] [--lab-name bench-truth]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

from wirespeed.cli.exit import raise_on_sigterm
from wirespeed.model import FindingKind
from wirespeed.run.search_legs import Leg, shared_up
from wirespeed.run.search_load import Sending, measuring
from wirespeed.search.mlrsearch import mlrsearch
from wirespeed.search.model import Goal, SearchLimits
from wirespeed.store import Store

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from support.two_clients import two_clients_one_dut

WIRESPEED = [sys.executable, "-m", "wirespeed.cli.app"]


def _load() -> str:
    return Path("/proc/loadavg").read_text().split(" ", 3)[2]


def lab_truth(limit: int, lab_name: str, tcpreplay_cpus: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        plan = Path(tmp) / "plan.yaml"
        tests = "\n".join(
            f"""  - id: {generator}
    tool: forwarding
    options: {{frame_sizes: [64], goals: [{{name: NDR, loss: 0}}], max_rate: {2 * limit},
               generator: {generator}, cpus: {cpus}}}"""
            for generator, cpus in (("tcpreplay", tcpreplay_cpus), ("iperf2", 1))
        )
        plan.write_text(
            textwrap.dedent(f"""\
                lab: {{link: unshaped, dut: {{forward_pps: {limit}}}}}
                paths: [{{name: R, topology: router}}]
                tests:
                """)
            + tests
            + "\n",
            encoding="utf-8",
        )
        db = Path(tmp) / "runs.db"
        before = _load()
        subprocess.run(
            [*WIRESPEED, "run", str(plan), "--db", str(db), "--lab-name", lab_name, "-q"],
            check=False,
        )
        with Store.open(str(db), read_only=True) as store:
            outcomes = store.load_run(None).outcomes
    print(f"\n## DUT limited to {limit:,} pps, 64 B (load {before} -> {_load()})")
    for outcome in outcomes:
        found = outcome.result.measurements if outcome.result is not None else ()
        ndr = next((m.value for m in found if m.name == "NDR"), None)
        error = "-" if ndr is None else f"{(ndr / limit - 1) * 100:+.2f} %"
        notes = [f.message for f in outcome.findings if f.kind is FindingKind.GENERATOR_LIMITED]
        print(
            f"| {outcome.trial.test.id} | NDR {ndr} | {error} | {outcome.status.value} "
            f"| {outcome.reason or ''} | {notes} |"
        )


def senders_truth(limit: int) -> None:
    before = _load()
    with two_clients_one_dut(limit, net=71, tag="gt") as (c1, c2, server, address):
        shared = shared_up((c1, c2), server, address)["up"]
        legs = tuple(
            Leg(leg.sender, leg.receiver, leg.target, leg.port, counted=True, share=leg.share)
            for leg in shared
        )
        sending = Sending({leg.sender.name: "tcpreplay" for leg in legs})
        goal = Goal("NDR", final_duration=10.0, width=0.01)
        limits = SearchLimits(max_load=2 * limit, min_load=1_000, initial_duration=1.0)
        with measuring(legs, 64, sending) as measure:
            found = mlrsearch(measure, (goal,), limits)
    ndr = found.goal("NDR").lower
    error = "-" if ndr is None else f"{(ndr / limit - 1) * 100:+.2f} %"
    print(f"\n## Two senders into one DUT limited to {limit:,} pps (load {before} -> {_load()})")
    print(f"| NDR {ndr} | {error} | {len(found.trials)} trials |")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--limit", type=int, default=250_000)
    parser.add_argument("--senders-limit", type=int, default=100_000)
    parser.add_argument("--lab-name", default="bench-truth")
    parser.add_argument("--cpus", type=int, default=2, help="tcpreplay's processes")
    parser.add_argument("--only", choices=("lab", "senders"), default=None)
    args = parser.parse_args()
    raise_on_sigterm()
    if args.only in (None, "lab"):
        lab_truth(args.limit, args.lab_name, args.cpus)
    if args.only in (None, "senders"):
        senders_truth(args.senders_limit)


if __name__ == "__main__":
    main()
