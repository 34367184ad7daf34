"""A card's plan, made for its bench: the parts the bench cannot give left out, the
hosts asked before the run what they lack and what they are (card/probe.py), the tuned
variant chosen from what the device is (card/tuning_choice.py), the expectations put
in. And how long each of its parts takes, for the line before the run."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from wirespeed.errors import UsageError

if TYPE_CHECKING:
    from wirespeed.card.plan_text import CardOptions
    from wirespeed.card.target import CardBench
    from wirespeed.hosts.ssh_connection import SshSettings
    from wirespeed.plan import Plan


def compose_card(
    bench: CardBench,
    options: CardOptions,
    typed: Mapping[str, str],
    *,
    tuned: bool,
    expect: str | None,
    ssh: Callable[[], SshSettings] | None,
    db: str | None,
    warn: Callable[[str], None],
    say: Callable[[str], None],
) -> Plan:
    """The card's plan, what it leaves out said through `warn`; a problem with it said
    as that of the option that made it (`typed`: the options as given, card/
    option_errors.py). `ssh`: how the hosts are reached to probe them before the run;
    None: they are not probed (the plan is only printed)."""
    from wirespeed.card.availability import bench_skips
    from wirespeed.card.option_errors import card_plan_checked, with_expectations
    from wirespeed.card.plan_text import SOURCE, Tuned, card_plan_text
    from wirespeed.card.probe import probe
    from wirespeed.card.tuning_choice import tuned_of

    skipped = {**options.skipped, **bench_skips(bench)}
    options = dataclasses.replace(options, skipped=skipped)
    if tuned:
        options = dataclasses.replace(options, tuned=Tuned())
    if ssh is not None:
        # The plan as it stands, for where the run will reach the device from.
        before = card_plan_checked(card_plan_text(bench, options), SOURCE, dict(typed))
        missing, lines, facts = probe(bench, before, ssh(), db, warn=warn, say=say)
        skipped |= missing
        options = dataclasses.replace(options, skipped=skipped, facts=lines)
        if tuned:
            options = dataclasses.replace(options, tuned=tuned_of(bench, facts))
    for reason in skipped.values():
        warn(f"skipped: {reason}")
    something_left(skipped)
    if options.tuned is not None and options.tuned.nothing:
        warn(f"{options.tuned.nothing}: the card runs once")
    text = card_plan_text(bench, options)
    if not expect:
        return card_plan_checked(text, SOURCE, dict(typed))
    text, expected = with_expectations(text, expect)
    return card_plan_checked(text, f"<card with {expect}>", dict(typed), expected)


def something_left(skipped: Mapping[str, str]) -> None:
    """Every part left out (by --skip, the bench, missing programs): nothing to run."""
    from wirespeed.card.parts import COMPUTE, OPENVPN_PATH, SKIPPABLE, VPN, WIREGUARD_PATH

    # A part is gone when it is left out, or each of its tests (tunnels) is.
    within = {COMPUTE.key: COMPUTE.tests, VPN.key: (WIREGUARD_PATH, OPENVPN_PATH)}

    def gone(key: str) -> bool:
        return key in skipped or (key in within and all(t in skipped for t in within[key]))

    if all(gone(key) for key in SKIPPABLE):
        by_skip = [key for key in SKIPPABLE if skipped.get(key, "").endswith("(--skip)")]
        raise UsageError(
            "the card has no part left to measure"
            + (f": --skip {','.join(by_skip)} leaves out the rest" if by_skip else ""),
            hint="leave at least one part in (the lines above say why each other was left out)",
        )


def part_seconds(plan: Plan) -> list[tuple[str, float]]:
    """Each part of the card with tests, and about how long its trials take (as the
    progress bar counts them, plan/estimates.py)."""
    from wirespeed.card.parts import PARTS
    from wirespeed.kinds.catalog import trial_seconds

    parts = []
    for part in PARTS:
        tests = [t for t in plan.tests if t.id in part.tests]
        if not tests:
            continue
        seconds = 0.0
        for test in tests:
            states = sum(1 for variant in plan.variants if variant.runs(test.id))
            places = len(plan.paths_for(test)) * plan.repetitions * states
            seconds += trial_seconds(test, plan.lab is not None) * places
        parts.append((part.key, seconds))
    return parts
