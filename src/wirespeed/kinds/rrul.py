"""RRUL (flent's realtime response under load): TCP streams both ways at once through the
path, with latency probes idle and during the load."""

from __future__ import annotations

from wirespeed.kinds.hooks import KindHooks
from wirespeed.plan.estimates import traffic_seconds
from wirespeed.plan.kind_checks import check_rrul
from wirespeed.plan.kind_yields import rrul_yields
from wirespeed.run.kind_runs import run_rrul
from wirespeed.trial_kind import Tool, flows

# Its streams are its own (TCP both ways, more of them until stable), run by iperf3.
KIND = flows("rrul", Tool.RRUL, program="iperf3", own_streams=True)

HOOKS = (KindHooks(KIND, run_rrul, traffic_seconds, yields=rrul_yields, checks=check_rrul),)
