"""Kernel log lines that explain a bad trial, by name.

The patterns are drivers' own words (igb, e1000e, stmmac, r8169, the net core's
watchdog); an unknown line is still kept, only without an event name.
"""

from __future__ import annotations

import re

# The start of every kernel log line a lab's fault injection writes (soak/faults.py):
# `wirespeed-lab[NAME]: <a driver's words>`, so nobody takes it for the machine's own.
INJECTED_PREFIX = "wirespeed-lab["

# First match wins: "Reset adapter" lines often mention the link too.
KNOWN_EVENTS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("tx-hang", re.compile(r"Detected Tx Unit Hang|TX ring dump|transmit queue \d+ timed out")),
    ("adapter-reset", re.compile(r"Reset adapter|reset adapter|Resetting|resetting adapter")),
    ("link-down", re.compile(r"Link is Down|link down|link becomes down", re.IGNORECASE)),
    ("link-up", re.compile(r"Link is Up|link up|link becomes ready", re.IGNORECASE)),
    ("oom", re.compile(r"Out of memory|oom-kill|invoked oom-killer")),
    ("page-allocation-failure", re.compile(r"page allocation failure")),
    ("conntrack-full", re.compile(r"nf_conntrack: table full")),
    ("soft-lockup", re.compile(r"soft lockup|hard LOCKUP|rcu_sched self-detected stall")),
    ("thermal", re.compile(r"critical temperature|thermal.*(throttl|shutdown)", re.IGNORECASE)),
    ("under-voltage", re.compile(r"[Uu]nder-?voltage")),
)


def classify(message: str) -> str | None:
    """The known event a kernel log message reports, or None."""
    for name, pattern in KNOWN_EVENTS:
        if pattern.search(message):
            return name
    return None
