"""Benchmarks on one host, no traffic: openssl speed, 7-zip, UnixBench (tools/bench.py).
Each tool's module is its driver and holds its `options:` model."""

from __future__ import annotations

from wirespeed.kinds.hooks import KindHooks
from wirespeed.plan.estimates import benchmark_seconds
from wirespeed.plan.kind_yields import openssl_yields, sevenzip_yields, unixbench_yields
from wirespeed.plan.yields import KindYields
from wirespeed.run.kind_runs import run_benchmark
from wirespeed.tools import openssl, sevenzip, unixbench
from wirespeed.tools.bench import BenchDriver
from wirespeed.trial_kind import kind_of


def _benchmark(driver: BenchDriver, yields: KindYields) -> KindHooks:
    return KindHooks(
        kind_of(driver.TOOL),
        run=run_benchmark,
        estimate=benchmark_seconds,
        options=driver.Options,
        driver=driver,
        yields=yields,
    )


HOOKS = (
    _benchmark(openssl, openssl_yields),
    _benchmark(sevenzip, sevenzip_yields),
    _benchmark(unixbench, unixbench_yields),
)
