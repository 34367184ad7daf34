"""The search with a faster generator, and with several senders, against their truths.

1. A lab DUT limited to 250,000 packets/s (nftables), near the top of what this
   2-core machine forwards through its lab at all: with `generator: tcpreplay, cpus: 2`
   the search finds the limit. (Where iperf2 falls short of a limit, its answer is the
   generator's: test_forwarding_search's far-beyond-the-generator test. Whether iperf2
   reaches 250 kpps here depends on the machine's load, which no test can fix:
   benchmarks/generator_truth.py measures both.)
2. Two senders into one DUT (two client namespaces, built with plain ip and nft, not
   wirespeed's lab code): their loads add up to the DUT's limit, each sending half, their
   counts summed and the receiver counted once.

Loose bounds (this machine may be busy); the precise figures are benchmarks/
generator_ceiling.py's and docs/benchmarks.md's.
"""

from __future__ import annotations

import subprocess
import textwrap
from pathlib import Path

import pytest
from lab_runs import WIRESPEED, namespaces_of, unique_prefix

from support.two_clients import two_clients_one_dut
from wirespeed.model import FindingKind, Measurement, TrialOutcome, TrialStatus
from wirespeed.run.search_legs import Leg, shared_up
from wirespeed.run.search_load import Sending, directions_of, measuring
from wirespeed.search.log import SEARCH_ARGV0, from_json
from wirespeed.search.mlrsearch import mlrsearch
from wirespeed.search.model import Goal, SearchLimits, TrialResult
from wirespeed.store import Store

pytestmark = [pytest.mark.root, pytest.mark.slow]

# Short trials, and few: a search that cannot converge must not take minutes of CI. A
# busy machine's lab drops now and then near the limit (a starved sender's catch-up
# burst, a CPU's full backlog): two final trials decide a load, and one bad one of them
# does not make it an upper bound (RFC 9971's exceed ratio, 0.5 by default).
QUICK = "initial_duration: 0.5, final_duration: 1.5, duration_sum: 3, width: 2%, max_trials: 30"
LIMIT = 250_000


def _outcomes(db: Path) -> dict[str, TrialOutcome]:
    with Store.open(str(db), read_only=True) as store:
        return {o.trial.test.id: o for o in store.load_run(None).outcomes}


def _ndr(outcome: TrialOutcome) -> float:
    assert outcome.result is not None
    found: list[Measurement] = [m for m in outcome.result.measurements if m.name == "NDR"]
    assert len(found) == 1, outcome.result.measurements
    return found[0].value


def _frame_files() -> set[str]:
    # Every run's (another's may come and go): a test compares before and after.
    return {p.name for p in Path("/tmp").glob("wirespeed-frame-*.pcap")}


def test_tcpreplay_from_two_cpus_finds_a_250_kpps_limit(tmp_path: Path) -> None:
    prefix = unique_prefix("fast-gen")
    plan = tmp_path / "plan.yaml"
    plan.write_text(
        textwrap.dedent(f"""
            lab: {{link: unshaped, dut: {{forward_pps: {LIMIT}}}}}
            paths: [{{name: R, topology: router}}]
            tests:
              - id: replayed
                tool: forwarding
                options: {{frame_sizes: [64], goals: [{{name: NDR, loss: 0}}], {QUICK},
                           max_rate: 400kpps, generator: tcpreplay, cpus: 2}}
        """),
        encoding="utf-8",
    )
    db = tmp_path / "runs.db"
    done = subprocess.run(
        [*WIRESPEED, "run", str(plan), "--db", str(db), "--lab-name", prefix],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert namespaces_of(prefix) == [], "the run left namespaces behind"
    replayed = _outcomes(db)["replayed"]
    assert replayed.status is TrialStatus.OK, (replayed.reason, done.stdout, done.stderr)
    ndr = _ndr(replayed)
    assert ndr <= LIMIT * 1.02, ndr
    # A finding (generator-limited, unfinished) explains a shortfall, it does not excuse
    # any: at a load average of 7 tcpreplay still sent 186 kpps (74 %) through the lab,
    # while tcpreplay without its nanosecond timer once sent 68 kpps (27 %).
    assert ndr >= LIMIT * 0.7, (ndr, replayed.findings)
    replay_limited = [f for f in replayed.findings if f.kind is FindingKind.GENERATOR_LIMITED]
    replay_unfinished = [f for f in replayed.findings if f.kind is FindingKind.SEARCH_UNFINISHED]
    if replay_unfinished and not replay_limited and ndr < LIMIT * 0.9:
        # A busy machine's lab drops at its CPU backlog now and then, near the limit: the
        # search runs out of trials between bounds it cannot close, and says so (its NDR
        # is a lower bound). The precise figure: benchmarks/generator_truth.py.
        assert "before converging" in replay_unfinished[0].message, replay_unfinished
    elif not replay_limited:
        # The truth, loosely (the precise figure: benchmarks/generator_truth.py); below
        # it only where the run says the lab's machine was the limit: its DUT busy on a
        # core it shares with the generator, or its CPU backlog dropping (CI once found
        # 219 kpps, 88 %, with both said).
        machine = [
            f
            for f in replayed.findings
            if f.kind in (FindingKind.CPU_BOUND, FindingKind.LAB_LIMITED)
            or (f.kind is FindingKind.DROPS and "CPU backlog" in f.message)
        ]
        assert ndr >= LIMIT * 0.9 or machine, (ndr, replayed.findings)
    else:
        # A machine so busy that even tcpreplay falls short (measured at a load average
        # of 7: 186 kpps of 64 B through the lab): then the answer must say so, as a
        # bound no higher than what it sent, never as the DUT's NDR.
        assert "generator's limit" in replay_limited[0].message, replay_limited
    senders = [r for r in replayed.raw if r.argv[:1] == ("tcpreplay",)]
    assert senders and all("Successful packets" in r.text for r in senders)
    # The frame file each sent from is gone with the run.
    assert not [r.argv[-1] for r in senders if Path(r.argv[-1]).exists()]
    (log,) = [from_json(r.text) for r in replayed.raw if r.argv[:1] == (SEARCH_ARGV0,)]
    for trial, wire in zip(log.result.trials, log.interfaces, strict=True):
        # tcpreplay receives nothing: what arrived is the server's count, which its
        # interface saw too; what left is tcpreplay's count, which the client's did.
        assert wire is not None and wire.tx >= trial.sent and wire.rx >= trial.received


def test_two_senders_add_up_to_the_dut_limit() -> None:
    limit = 60_000
    with two_clients_one_dut(limit) as (c1, c2, server, address):
        legs = shared_up((c1, c2), server, address)["up"]
        legs = tuple(Leg(leg.sender, leg.receiver, leg.target, leg.port, counted=True,
                         share=leg.share) for leg in legs)  # fmt: skip
        assert directions_of(legs) == 1
        sending = Sending({leg.sender.name: "tcpreplay" for leg in legs})
        goal = Goal("NDR", final_duration=1.5, width=0.02)
        limits = SearchLimits(max_load=120_000, min_load=1_000, initial_duration=0.5)
        trials: list[TrialResult] = []
        before = _frame_files()
        with measuring(legs, 64, sending) as measure:

            def kept(load: float, duration: float) -> TrialResult:
                trial = measure(load, duration)
                trials.append(trial)
                return trial

            found = mlrsearch(kept, (goal,), limits)
        assert _frame_files() <= before, "tcpreplay's frame files were left behind"
    ndr = found.goal("NDR").lower
    assert ndr is not None and limit * 0.9 <= ndr <= limit * 1.02, (ndr, trials)
    # Each sender sent half; what both sent is summed, and the server counted once.
    lossless = [t for t in trials if t.received == t.sent and not t.generator_limited]
    assert lossless
    for trial in lossless:
        assert trial.sent == pytest.approx(trial.intended * trial.sending_seconds, rel=0.02)
