"""`variants:` in a plan: validated with positions, expanded interleaved per repetition."""

from __future__ import annotations

import textwrap
from collections import Counter

import pytest

from wirespeed.plan import Plan, PlanError, Variant, expand, parse_plan
from wirespeed.plan.plan import ALL_POLICIES

BASE = """
lab: {link: gbe}
paths:
  - {name: WAN, topology: endpoint}
  - {name: Br0, topology: bridge}
tests:
  - {id: 1}
  - {id: 2, window: 64K}
"""


def plan_with(variants: str, base: str = BASE, repetitions: int = 1) -> Plan:
    text = textwrap.dedent(base) + f"repetitions: {repetitions}\n" + textwrap.dedent(variants)
    return parse_plan(text, source="plan.yaml")


def problems_of(variants: str, base: str = BASE) -> list[str]:
    with pytest.raises(PlanError) as caught:
        plan_with(variants, base)
    return [f"{p.line}:{p.column}: {p.message}" for p in caught.value.problems]


def test_a_plan_without_variants_runs_in_one_that_changes_nothing() -> None:
    plan = parse_plan(BASE)
    assert plan.variants == (Variant("default"),)
    assert plan.variants[0].changes_nothing
    assert {trial.variant for trial in expand(plan)} == {"default"}


def test_variants_are_read_with_their_settings() -> None:
    plan = plan_with(
        """
        variants:
          - name: default
          - {name: rps-spread, rps: spread}
          - {name: pinned, rps: "0x3", xps: "f"}
          - {name: mtu512, mtu: 512}
          - name: no-offloads
            offloads: {gro: off, GSO: false, tso: "off", rx-checksumming: on}
          - {name: rps-off, rps: off}
        """
    )
    by_name = {v.name: v for v in plan.variants}
    assert list(by_name) == ["default", "rps-spread", "pinned", "mtu512", "no-offloads", "rps-off"]
    assert by_name["rps-spread"].rps == "spread"
    assert (by_name["pinned"].rps, by_name["pinned"].xps) == ("3", "f")
    assert by_name["mtu512"].mtu == 512
    assert by_name["no-offloads"].offloads == (
        ("gro", "off"),
        ("gso", "off"),
        ("tso", "off"),
        ("rx-checksumming", "on"),
    )
    assert by_name["rps-off"].rps == "0"
    assert by_name["no-offloads"].state() == {
        "offloads": {"gro": "off", "gso": "off", "tso": "off", "rx-checksumming": "on"}
    }


def test_every_bad_variant_is_reported_at_its_line_and_column() -> None:
    # BASE is 8 lines and `repetitions:` the 9th, so `variants:` starts on line 11.
    assert problems_of(
        """
        variants:
          - name: default
          - {name: fast, rps: 10}
          - {name: odd, rps: everywhere, mtu: 40}
          - {name: off, offloads: {gro: maybe, "bad/name": off}}
          - {nme: typo}
          - {name: default}
        """
    ) == [
        '13:23: rps: write a CPU mask as quoted hex text, such as "10" or "0xa", not as a number',
        "14:22: rps: 'everywhere' is not spread, off or a hex CPU mask such as 3f",
        "14:39: mtu: must be at least 68, got 40",
        "15:33: offloads.gro: expected on or off, got 'maybe'",
        "15:40: offloads.bad/name: 'bad/name' is not an offload feature: use ethtool's names, "
        "such as gro, gso, tso or generic-receive-offload",
        "16:5: missing key 'name'",
        "16:6: unknown key 'nme' (did you mean 'name'?)",
        "17:12: duplicate variant name 'default' (first at line 12)",
    ]


def test_an_empty_variants_list_is_an_error() -> None:
    assert problems_of("variants: []\n") == ["10:11: variants: the list is empty"]


def test_a_variant_mtu_and_a_test_mtu_cannot_both_be_set() -> None:
    base = BASE.replace("{id: 2, window: 64K}", "{id: 2, mtu: 9000}")
    assert problems_of("variants: [{name: small, mtu: 512}]\n", base) == [
        "10:31: variant 'small' sets mtu, and so do tests '2': each trial has one MTU"
    ]


def test_udp_datagrams_are_checked_against_each_variants_mtu() -> None:
    base = BASE.replace("{id: 2, window: 64K}", "{id: 2, protocol: udp, rate: 1G, length: 1400}")
    plan = plan_with("variants: [{name: default}, {name: small, mtu: 512}]\n", base)
    assert [w.message for w in plan.warnings] == [
        "test '2': UDP datagrams of 1400 bytes do not fit MTU 512 (variant 'small') "
        "(at most 484): fragmented on the wire"
    ]


def test_variants_interleave_within_each_repetition() -> None:
    plan = plan_with(
        "variants: [{name: a}, {name: b, rps: spread}, {name: c, mtu: 512}]\n", repetitions=3
    )
    trials = expand(plan)
    assert len(trials) == 2 * 2 * 3 * 3
    blocks = [(t.repetition, t.variant) for t in trials]
    order = list(dict.fromkeys(blocks))  # each (repetition, variant) block once, in run order
    assert order == [
        (1, "a"), (1, "b"), (1, "c"),
        (2, "c"), (2, "b"), (2, "a"),
        (3, "a"), (3, "b"), (3, "c"),
    ]  # fmt: skip
    # Each block holds every test on every path, path-major, and nothing else.
    assert all(n == 4 for n in Counter(blocks).values())
    assert [t.key for t in trials[:4]] == ["1/WAN/a/1", "2/WAN/a/1", "1/Br0/a/1", "2/Br0/a/1"]
    assert len({t.key for t in trials}) == len(trials)


def test_every_variant_gets_every_repetition_and_only_filters_tests() -> None:
    plan = plan_with("variants: [{name: a}, {name: b, rps: spread}]\n")
    trials = expand(plan, repetitions=2, only=["2"])
    assert Counter((t.variant, t.repetition) for t in trials) == {
        ("a", 1): 2,
        ("b", 1): 2,
        ("b", 2): 2,
        ("a", 2): 2,
    }
    assert {t.test.id for t in trials} == {"2"}


def test_a_variants_mtu_is_its_trials_mtu_and_sets_their_ceiling() -> None:
    from pathlib import Path

    from wirespeed.analysis.ceiling import ceiling_for
    from wirespeed.plan import load_plan

    examples = Path(__file__).parents[3] / "examples"
    trials = expand(load_plan(examples / "mtu-matrix.yaml"), repetitions=1, only=["tcp"])
    by_variant = {t.variant: t for t in trials}
    assert by_variant["default"].test.spec.mtu is None
    assert by_variant["mtu512"].test.spec.mtu == 512
    ceiling = ceiling_for(by_variant["mtu512"])
    assert ceiling is not None and round(ceiling.bits_per_second / 1e6, 1) == 836.4


def test_cpu_variants_are_read_with_their_settings() -> None:
    plan = plan_with(
        """
        variants:
          - {name: one-core, cpus_online: [0]}
          - {name: big, cpus_online: [6, 0, 7], governor: performance}
          - {name: slow, max_freq: 1.2GHz}
          - {name: per-policy, max_freq: {policy0: 1416MHz, 4: 1800000kHz}}
        """
    )
    by_name = {v.name: v for v in plan.variants}
    assert by_name["one-core"].cpus_online == (0,)
    assert by_name["big"].cpus_online == (0, 6, 7)
    assert by_name["big"].governor == "performance"
    assert by_name["slow"].max_freq == ((ALL_POLICIES, 1_200_000),)
    assert by_name["per-policy"].max_freq == ((0, 1_416_000), (4, 1_800_000))
    assert all(v.changes_cpus and not v.changes_links for v in plan.variants)
    # What a run keeps in its provenance.
    assert by_name["big"].state() == {"cpus_online": [0, 6, 7], "governor": "performance"}
    assert by_name["per-policy"].state() == {
        "max_freq_khz": {"policy0": 1_416_000, "policy4": 1_800_000}
    }


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("{name: a, cpus_online: [1]}", "cpus_online: cpu0 must stay online"),
        ("{name: a, cpus_online: []}", "cpus_online: cpu0 must stay online"),
        ("{name: a, cpus_online: [0, 0]}", "a CPU is listed twice"),
        ("{name: a, cpus_online: [0, -1]}", "cpus_online[1]: expected a CPU number"),
        ("{name: a, governor: 'perf ormance'}", "not a cpufreq governor's name"),
        ("{name: a, max_freq: 1200}", "expected a frequency with its unit, such as 1.2GHz"),
        ("{name: a, max_freq: {big: 1GHz}}", "expected a cpufreq policy such as policy0"),
        ("{name: a, max_freq: {0: 1GHz, policy0: 2GHz}}", "policy0 is given twice"),
        ("{name: a, max_freq: {4: fast}}", "max_freq: 4: expected a frequency"),
    ],
)
def test_a_cpu_variant_that_cannot_be_right_is_refused_at_plan_check(
    entry: str, message: str
) -> None:
    problems = problems_of(f"variants:\n  - {entry}\n")
    assert len(problems) == 1
    assert message in problems[0]
