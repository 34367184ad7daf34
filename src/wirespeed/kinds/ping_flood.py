"""A ping flood through the path: ICMP echo requests as fast as the far end answers them
(iputils' `ping -f`, tools/ping_flood.py); no server, the far end's kernel replies."""

from __future__ import annotations

from wirespeed.kinds.hooks import exchange_hooks
from wirespeed.tools import ping_flood
from wirespeed.trial_kind import Measures, Tool, measured_across

KIND = measured_across(
    Tool("ping-flood"),
    "ping flood",
    program=ping_flood.PROGRAM,
    measures=(
        Measures(ping_flood.RTT, "ms", (("stat", ping_flood.STATISTICS),)),
        Measures(ping_flood.LOSS, "%"),
        Measures(ping_flood.RATE, "pps"),
    ),
)

HOOKS = (exchange_hooks(KIND, ping_flood, ping_flood.Options),)
