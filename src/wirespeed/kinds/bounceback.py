"""Round trips of small TCP messages between client and server (iperf2 --bounceback)."""

from __future__ import annotations

from wirespeed.kinds.hooks import KindHooks
from wirespeed.kinds.registry import Tool, kind_of
from wirespeed.plan.estimates import bounceback_seconds

HOOKS = (KindHooks(kind_of(Tool.BOUNCEBACK), estimate=bounceback_seconds),)
