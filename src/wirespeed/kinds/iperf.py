"""iperf2 and iperf3: flows of TCP or UDP between a client and a server on a path."""

from __future__ import annotations

from wirespeed.kinds.hooks import KindHooks
from wirespeed.plan.estimates import traffic_seconds
from wirespeed.plan.kind_checks import check_iperf2, check_iperf3
from wirespeed.plan.kind_yields import iperf_yields
from wirespeed.run.kind_runs import run_iperf
from wirespeed.trial_kind import Tool, flows

HOOKS = tuple(
    KindHooks(kind, run=run_iperf, estimate=traffic_seconds, yields=iperf_yields, checks=checks)
    for kind, checks in (
        (flows("iperf", Tool.IPERF2, program="iperf"), check_iperf2),
        (flows("iperf3", Tool.IPERF3, program="iperf3"), check_iperf3),
    )
)
