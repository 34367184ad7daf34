"""RRUL (flent's realtime response under load): TCP streams both ways at once through the
path, with latency probes idle and during the load."""

from __future__ import annotations

from wirespeed.kinds.hooks import KindHooks
from wirespeed.kinds.registry import Tool, kind_of
from wirespeed.plan.estimates import traffic_seconds

HOOKS = (KindHooks(kind_of(Tool.RRUL), estimate=traffic_seconds),)
