"""A kind no module of wirespeed names, as a new kind's module is written: what it is (its
TrialKind, its tool `echo-rtt`) beside what it does (its hooks). It times the round
trips of iperf2's bounceback under a tool of its own, so it is whole: its driver,
options and figures are bounceback's.

tests/unit/test_another_kind.py puts this directory beside wirespeed's kinds/ and asks
the catalog again, as it finds every kind's module."""

from __future__ import annotations

from wirespeed.kinds.hooks import exchange_hooks
from wirespeed.tools import bounceback
from wirespeed.trial_kind import Measures, Tool, measured_across

RTT = Measures(bounceback.NAME, "ms", (("stat", bounceback.STATISTICS),))
KIND = measured_across(Tool("echo-rtt"), "echo round trips", measures=(RTT,))

HOOKS = (exchange_hooks(KIND, bounceback, bounceback.Options),)
