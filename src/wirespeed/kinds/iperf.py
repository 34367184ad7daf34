"""iperf2 and iperf3: flows of TCP or UDP between a client and a server on a path."""

from __future__ import annotations

from wirespeed.kinds.hooks import KindHooks
from wirespeed.kinds.registry import Tool, kind_of
from wirespeed.plan.estimates import traffic_seconds

HOOKS = (
    KindHooks(kind_of(Tool.IPERF2), estimate=traffic_seconds),
    KindHooks(kind_of(Tool.IPERF3), estimate=traffic_seconds),
)
