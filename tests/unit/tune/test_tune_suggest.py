"""The tuning plan: the seed's R4S recipe, the R2S kept apart, told in masks and CPUs."""

from __future__ import annotations

import dataclasses
import json

import pytest
from tune_helpers import BOARDS

from wirespeed.facts import Facts, TreeSource, collect
from wirespeed.tune import plan_document, render_plan, suggest
from wirespeed.tune.model import cpu_list, cpus_text, mask_of, same_mask
from wirespeed.tune.suggest import IRQBALANCE_WARNING, explain


@pytest.fixture(scope="module")
def r4s() -> Facts:
    return collect(TreeSource(BOARDS / "r4s"))


@pytest.fixture(scope="module")
def r2s() -> Facts:
    return collect(TreeSource(BOARDS / "r2s"))


def test_the_r4s_plan_is_the_seeds_recipe_eth0_on_cpu4_eth1_on_cpu5(r4s: Facts) -> None:
    plan = suggest(r4s)
    assert {a.nic: a.cpu for a in plan.assignments} == {"eth0": 4, "eth1": 5}
    assert {c.path: (c.old, c.new) for c in plan.changes} == {
        "/proc/irq/27/smp_affinity": ("3f", "10"),
        "/sys/class/net/eth0/queues/rx-0/rps_cpus": ("0", "10"),
        "/proc/irq/234/smp_affinity": ("3f", "20"),
        "/sys/class/net/eth1/queues/rx-0/rps_cpus": ("0", "20"),
    }


def test_each_change_is_explained_in_hex_masks_and_cpu_lists(r4s: Facts) -> None:
    lines = [explain(change) for change in suggest(r4s).changes]
    assert "IRQ 27 (eth0): 3f (cpus 0-5) → 10 (cpu 4)" in lines
    assert "IRQ 234 (eth1): 3f (cpus 0-5) → 20 (cpu 5)" in lines
    assert "RPS eth1 rx-0: 0 (off) → 20 (cpu 5)" in lines
    assert "Cortex-A72" in suggest(r4s).changes[0].why


def test_the_r2s_usb_nic_is_found_behind_irq_167_and_the_nics_are_kept_apart(
    r2s: Facts,
) -> None:
    plan = suggest(r2s)
    by_nic = {a.nic: a for a in plan.assignments}
    assert by_nic["eth1"].irqs == (167,)
    assert by_nic["eth0"].irqs == (29,)
    assert by_nic["eth0"].cpu != by_nic["eth1"].cpu
    assert 0 not in (by_nic["eth0"].cpu, by_nic["eth1"].cpu)


def test_the_r2s_irqs_are_already_placed_so_only_rps_changes(r2s: Facts) -> None:
    plan = suggest(r2s)
    assert {c.path for c in plan.kept} == {
        "/proc/irq/29/smp_affinity",
        "/proc/irq/167/smp_affinity",
    }
    assert {c.path: c.new for c in plan.changes} == {
        "/sys/class/net/eth0/queues/rx-0/rps_cpus": "2",
        "/sys/class/net/eth1/queues/rx-0/rps_cpus": "4",
    }


def test_a_running_irqbalance_is_warned_about(r4s: Facts) -> None:
    assert IRQBALANCE_WARNING in suggest(dataclasses.replace(r4s, irqbalance=True)).warnings
    assert IRQBALANCE_WARNING not in suggest(r4s).warnings


def test_one_cpu_has_nothing_to_spread(r2s: Facts) -> None:
    one = dataclasses.replace(r2s, clusters=r2s.clusters[:0], irq_cpus=(0,))
    plan = suggest(one)
    assert plan.changes == ()
    assert any("one CPU" in w for w in plan.warnings)


def test_more_nics_than_fast_cores_share_the_fast_cores(r4s: Facts) -> None:
    third = dataclasses.replace(r4s.nics[0], name="eth2", irqs=(), rps=(), xps=())
    plan = suggest(dataclasses.replace(r4s, nics=(*r4s.nics, third)))
    assert [a.cpu for a in plan.assignments] == [4, 5, 4]


def test_the_plan_renders_as_text_and_json(r4s: Facts) -> None:
    plan = suggest(r4s)
    assert "eth0     → cpu 4  (IRQ 27)" in render_plan(plan)
    document = json.loads(json.dumps(plan_document(plan)))
    assert document["changes"][0]["new"] == "10"


def test_masks_and_cpu_lists() -> None:
    assert mask_of((4,)) == "10"
    assert mask_of((5,)) == "20"
    assert cpus_text("3f") == "cpus 0-5"
    assert cpus_text("0") == "off"
    assert cpu_list((0, 1, 2, 3, 5)) == "0-3,5"
    assert same_mask("00000000,00000010", "10")
    assert not same_mask("10", "20")


@pytest.fixture(scope="module")
def rk3588() -> Facts:
    return collect(TreeSource(BOARDS / "rk3588"))


def _with_capacities(facts: Facts, by_core: dict[str, int]) -> Facts:
    clusters = tuple(dataclasses.replace(c, capacity=by_core[c.core or ""]) for c in facts.clusters)
    return dataclasses.replace(facts, clusters=clusters)


def _more_nics(facts: Facts, count: int) -> Facts:
    extra = tuple(
        dataclasses.replace(facts.nics[0], name=f"eth{n}", irqs=(), rps=(), xps=())
        for n in range(1, count)
    )
    return dataclasses.replace(facts, nics=(*facts.nics, *extra))


def test_the_rk3588_nic_goes_to_an_a76_although_the_a76s_span_two_clusters(
    rk3588: Facts,
) -> None:
    plan = suggest(rk3588)
    assert plan.candidates == (4, 5, 6, 7)
    assert {a.nic: a.cpu for a in plan.assignments} == {"eth0": 4}
    assert {c.new for c in plan.changes} == {"10"}
    assert "Cortex-A76 at 2.4 GHz (fastest cores)" in plan.changes[0].why


def test_rk3588_nics_are_spread_over_both_a76_clusters_before_sharing(rk3588: Facts) -> None:
    plan = suggest(_more_nics(rk3588, 5))
    assert [a.cpu for a in plan.assignments] == [4, 5, 6, 7, 4]


def test_the_kernels_cpu_capacity_ranks_the_cores_when_given(rk3588: Facts) -> None:
    # cpu_capacity folds core type and clock together: the biggest core is 1024, and it
    # decides over frequency and core type; this tree has none, so it is set here.
    facts = _with_capacities(rk3588, {"Cortex-A55": 414, "Cortex-A76": 1024})
    assert suggest(facts).candidates == (4, 5, 6, 7)
    reversed_capacities = _with_capacities(rk3588, {"Cortex-A55": 1024, "Cortex-A76": 414})
    assert suggest(reversed_capacities).candidates == (1, 2, 3, 0)


def test_a76_clusters_binned_a_step_apart_are_still_both_fast(rk3588: Facts) -> None:
    binned = tuple(
        dataclasses.replace(c, max_khz=2256000) if c.policy == "policy6" else c
        for c in rk3588.clusters
    )
    plan = suggest(dataclasses.replace(rk3588, clusters=binned))
    assert plan.candidates == (4, 5, 6, 7)


def test_a_little_core_clocked_higher_does_not_beat_a_big_core(r4s: Facts) -> None:
    # frequency x work per clock: an A53 at 2.0 GHz does less than an A72 at 1.8 GHz.
    little_fast = tuple(
        dataclasses.replace(c, max_khz=2000000) if c.core == "Cortex-A53" else c
        for c in r4s.clusters
    )
    assert suggest(dataclasses.replace(r4s, clusters=little_fast)).candidates == (4, 5)
