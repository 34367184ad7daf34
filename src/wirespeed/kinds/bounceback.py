"""Round trips of small TCP messages between client and server (iperf2 --bounceback)."""

from __future__ import annotations

from wirespeed.kinds.hooks import exchange_hooks
from wirespeed.tools import bounceback
from wirespeed.trial_kind import Measures, Tool, measured_across

RTT = Measures(bounceback.NAME, "ms", (("stat", bounceback.STATISTICS),))
KIND = measured_across(Tool("bounceback"), "bounceback round trips", measures=(RTT,))

HOOKS = (exchange_hooks(KIND, bounceback, bounceback.Options),)
