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
from wirespeed.trial_kind import on_one_host


def _benchmark(driver: BenchDriver, title: str, yields: KindYields) -> KindHooks:
    """A benchmark's kind, its tool its driver's, `title` what a test without a name is."""
    return KindHooks(
        on_one_host(driver.TOOL, title),
        run=run_benchmark,
        estimate=benchmark_seconds,
        options=driver.Options,
        driver=driver,
        yields=yields,
    )


HOOKS = (
    _benchmark(openssl, "openssl speed", openssl_yields),
    _benchmark(sevenzip, "7-zip benchmark", sevenzip_yields),
    _benchmark(unixbench, "UnixBench", unixbench_yields),
)
