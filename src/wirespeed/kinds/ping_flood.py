"""A ping flood through the path: ICMP echo requests as fast as the far end answers them
(iputils' `ping -f`, tools/ping_flood.py); no server, the far end's kernel replies."""

from __future__ import annotations

from wirespeed.kinds.hooks import KindHooks
from wirespeed.model import TestCase
from wirespeed.run.exchange_trial import run_exchange_trial
from wirespeed.tools import ping_flood
from wirespeed.trial_kind import Tool, kind_of


def flood_seconds(test: TestCase, in_lab: bool) -> float:
    """The flood lasts its `options:` duration."""
    return float(test.settings_as(ping_flood.Options).duration)


HOOKS = (
    KindHooks(
        kind_of(Tool.PING_FLOOD),
        run=run_exchange_trial,
        estimate=flood_seconds,
        options=ping_flood.Options,
        driver=ping_flood,
    ),
)
