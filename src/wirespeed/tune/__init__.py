"""Tuning: suggest IRQ/RPS/XPS placement from facts, apply it journaled, restore it exactly.

    from wirespeed.tune import suggest, apply_changes, restore_session, tuned, recover
    plan = suggest(facts)                     # Facts -> TunePlan (pure)
    with Journal.open(db) as journal:         # the store's tune_journal table
        with tuned(host, plan.changes, journal):
            ...                               # benchmark; restored on any exit
        recover(journal, connect)             # what a killed process left changed

See docs/tuning.md.
"""

from wirespeed.tune.apply import (
    Recovery,
    RestoreError,
    RestoreReport,
    apply_changes,
    control_interface_of,
    forget,
    recover,
    restore_entries,
    restore_session,
    tuned,
)
from wirespeed.tune.journal import Entry, Journal, State
from wirespeed.tune.model import Assignment, Change, TunePlan
from wirespeed.tune.suggest import explain, plan_document, render_plan, suggest
from wirespeed.tune.targets import RefusedError, check_control_interface, parse_target

__all__ = [
    "Assignment",
    "Change",
    "Entry",
    "Journal",
    "Recovery",
    "RefusedError",
    "RestoreError",
    "RestoreReport",
    "State",
    "TunePlan",
    "apply_changes",
    "check_control_interface",
    "control_interface_of",
    "explain",
    "forget",
    "parse_target",
    "plan_document",
    "recover",
    "render_plan",
    "restore_entries",
    "restore_session",
    "suggest",
    "tuned",
]
