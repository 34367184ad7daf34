"""A trial's time is estimated once, by its kind (plan/estimates.py): the progress bar's
ETA, `card`'s line before it measures and `check`'s search phrase say the same. They
used to be three estimates: a benchmark was its unused `duration` in the bar and 30 s
on the card, a search the lab's length in the bar on a bench of real devices."""

from __future__ import annotations

import dataclasses
import io
import textwrap

import pytest
from rich.console import Console

from wirespeed.card.compose import part_seconds
from wirespeed.card.plan_text import CardOptions, Tuned, card_plan
from wirespeed.card.target import Ends, LabOptions, card_bench
from wirespeed.cli.progress import RichProgress
from wirespeed.cli.trial_kinds import trial_kinds
from wirespeed.kinds.catalog import kind_seconds, trial_seconds
from wirespeed.model import Tool, Trial
from wirespeed.plan import Plan, expand, parse_plan
from wirespeed.plan.estimates import OVERHEAD_SECONDS
from wirespeed.trial_kind import tools

EVERY_KIND = textwrap.dedent(
    """
    lab: {link: gbe}
    paths: [{name: R, topology: router}, {name: D, topology: device}]
    tests:
      - {id: i2, tool: iperf2, duration: 4}
      - {id: i3, tool: iperf3, duration: 6, probes: ping}
      - {id: rrul, tool: rrul, duration: 8}
      - {id: ssl, tool: openssl}
      - {id: 7z, tool: 7zip}
      - {id: ub, tool: unixbench, options: {directory: /root/byte-unixbench/UnixBench}}
      - {id: fwd, tool: forwarding}
      - {id: bb, tool: bounceback, options: {duration: 7}}
      - {id: pf, tool: ping-flood, options: {duration: 3}}
    """
)


def _bar_total(trials: list[Trial], in_lab: bool) -> float:
    console = Console(file=io.StringIO(), width=120, color_system=None)
    progress = RichProgress(console, in_lab=in_lab)
    progress.start(trials)
    progress.close()
    return progress.planned_seconds


def _card(in_lab: bool) -> Plan:
    plan = card_plan(card_bench("lab", LabOptions(), Ends()), CardOptions(tuned=Tuned()))
    # The same tests on a bench of real devices: what the estimates ask of a plan.
    return plan if in_lab else dataclasses.replace(plan, lab=None)


@pytest.mark.parametrize("in_lab", [True, False], ids=["lab", "bench"])
def test_the_card_line_and_the_progress_bar_count_the_same_seconds(in_lab: bool) -> None:
    plan = _card(in_lab)
    trials = expand(plan)
    bar = _bar_total(trials, in_lab)
    assert sum(seconds for _, seconds in part_seconds(plan)) == pytest.approx(bar)
    assert bar == pytest.approx(sum(trial_seconds(t.test, in_lab) for t in trials))


def test_a_search_on_real_devices_is_counted_longer_than_in_the_lab() -> None:
    # Its full-length trials are longer on a device (plan/forwarding.py): the bar used
    # to count the lab's wherever it ran.
    searches = [t for t in expand(parse_plan(EVERY_KIND)) if t.test.tool is Tool.FORWARDING]
    assert _bar_total(searches, in_lab=False) > _bar_total(searches, in_lab=True)


@pytest.mark.parametrize("in_lab", [True, False], ids=["lab", "bench"])
def test_check_says_a_search_takes_what_the_bar_counts(in_lab: bool) -> None:
    searches = [t for t in expand(_card(in_lab)) if t.test.tool is Tool.FORWARDING]
    assert len(searches) == 2  # the card's search, untuned and tuned
    seconds = _bar_total(searches, in_lab)
    assert seconds > 120  # minutes of trials, not its spec's 10 s
    (phrase,) = [p for p in trial_kinds(searches, in_lab=in_lab) if "search" in p]
    assert phrase == f"2 forwarding-rate searches (about {seconds / 60:.0f} min)"


def test_every_kind_estimates_its_own_time() -> None:
    plan = parse_plan(EVERY_KIND, source="plan.yaml")
    assert {test.tool for test in plan.tests} == set(tools())
    seconds = {test.id: kind_seconds(test) for test in plan.tests}
    assert seconds["i2"] == 4
    assert seconds["i3"] == 6 + 3  # the idle probes' baseline first (run/probes.py)
    assert seconds["bb"] == 7  # its options' duration, not the spec's
    assert seconds["pf"] == 3
    # A benchmark is not its unused `duration`; every kind takes some time.
    assert all(seconds[b] != 10 for b in ("ssl", "7z", "ub"))
    assert all(s > 0 for s in seconds.values())
    for test in plan.tests:
        assert trial_seconds(test) == kind_seconds(test) + OVERHEAD_SECONDS
