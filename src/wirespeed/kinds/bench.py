"""Benchmarks on one host, no traffic: openssl speed, 7-zip, UnixBench (tools/bench.py)."""

from __future__ import annotations

from wirespeed.kinds.hooks import KindHooks
from wirespeed.kinds.registry import Tool, kind_of
from wirespeed.plan.estimates import benchmark_seconds

HOOKS = tuple(
    KindHooks(kind_of(tool), estimate=benchmark_seconds)
    for tool in (Tool.OPENSSL, Tool.SEVENZIP, Tool.UNIXBENCH)
)
