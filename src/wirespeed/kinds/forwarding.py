"""The forwarding-rate search (RFC 2544 throughput, RFC 9971 MLRsearch): trials of paced
UDP at packet rates it chooses, per frame size (search/, run/search_trial.py)."""

from __future__ import annotations

from wirespeed.kinds.hooks import KindHooks
from wirespeed.plan.forwarding import ForwardingOptions, estimated_seconds
from wirespeed.plan.kind_checks import check_forwarding
from wirespeed.plan.kind_yields import forwarding_yields
from wirespeed.run.kind_runs import run_search
from wirespeed.search.summary import search_summary
from wirespeed.trial_kind import Tool, measured_across

# A search chooses its own loads, frames and durations.
KIND = measured_across(Tool.FORWARDING, "forwarding rate", searches=True, own_streams=True)

HOOKS = (
    KindHooks(
        KIND,
        run=run_search,
        estimate=estimated_seconds,
        options=ForwardingOptions,
        yields=forwarding_yields,
        checks=check_forwarding,
        summary=search_summary,
    ),
)
