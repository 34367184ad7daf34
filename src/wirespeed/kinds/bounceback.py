"""Round trips of small TCP messages between client and server (iperf2 --bounceback)."""

from __future__ import annotations

from wirespeed.kinds.hooks import KindHooks
from wirespeed.plan.estimates import bounceback_seconds
from wirespeed.run.exchange_trial import run_exchange_trial
from wirespeed.tools import bounceback
from wirespeed.trial_kind import Tool, kind_of

HOOKS = (
    KindHooks(
        kind_of(Tool.BOUNCEBACK),
        run=run_exchange_trial,
        estimate=bounceback_seconds,
        options=bounceback.Options,
        driver=bounceback,
    ),
)
