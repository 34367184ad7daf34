"""Round trips of small TCP messages between client and server (iperf2 --bounceback)."""

from __future__ import annotations

from wirespeed.kinds.hooks import exchange_hooks
from wirespeed.tools import bounceback
from wirespeed.trial_kind import Tool

HOOKS = (exchange_hooks(Tool.BOUNCEBACK, bounceback, bounceback.Options),)
