"""The forwarding-rate search (RFC 2544 throughput, RFC 9971 MLRsearch): trials of paced
UDP at packet rates it chooses, per frame size (search/, run/search_trial.py)."""

from __future__ import annotations

from wirespeed.kinds.hooks import KindHooks
from wirespeed.kinds.registry import Tool, kind_of
from wirespeed.plan.forwarding import estimated_seconds
from wirespeed.search.summary import search_summary

HOOKS = (KindHooks(kind_of(Tool.FORWARDING), estimate=estimated_seconds, summary=search_summary),)
