"""A ping flood through the path: ICMP echo requests as fast as the far end answers them
(iputils' `ping -f`, tools/ping_flood.py); no server, the far end's kernel replies."""

from __future__ import annotations

from wirespeed.kinds.hooks import exchange_hooks
from wirespeed.tools import ping_flood
from wirespeed.trial_kind import Tool

HOOKS = (exchange_hooks(Tool.PING_FLOOD, ping_flood, ping_flood.Options),)
