"""How long a trial takes, said once for the progress bar's ETA, `card`'s line before
it measures, and `check` / `plans`: each kind's own estimate (the function its module
gives as its `estimate` hook, kinds/hooks.py, from the plan alone) plus what the harness
adds to any trial (kinds/catalog.py: trial_seconds).

A kind's estimate is called as function(test, in_lab) and gives the seconds one trial
of it runs: in_lab is whether the plan runs in the emulated lab (a search's full-length
trials are shorter there, plan/forwarding.py).
"""

from __future__ import annotations

from wirespeed.model import TestCase
from wirespeed.tools.probing import IDLE_SECONDS

# Measured harness overhead per trial (docs/benchmarks.md): servers started, results
# parsed and stored.
OVERHEAD_SECONDS = 0.3
# A benchmark on one host, as its defaults take on a board (openssl's 2 ciphers x 2
# blocks x with and without EVP at 3 s each, a 7-zip pass, a short UnixBench): rough on
# purpose, its options make it shorter or longer.
BENCHMARK_SECONDS = 30.0


# --- each kind's estimate (its module's `estimate` hook, kinds/iperf.py ...) -------------


def traffic_seconds(test: TestCase, in_lab: bool) -> float:
    """iperf, RRUL: the test's duration, after the idle probes' baseline where it has
    probes (run/probes.py)."""
    idle = IDLE_SECONDS if test.spec.probes is not None else 0.0
    return test.spec.duration + idle


def benchmark_seconds(test: TestCase, in_lab: bool) -> float:
    return BENCHMARK_SECONDS
