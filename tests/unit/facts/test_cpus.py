"""CPU clusters: core types from /proc/cpuinfo, frequency domains from cpufreq."""

from __future__ import annotations

from wirespeed.facts import Facts
from wirespeed.facts.cpus import parse_cpu_list, parse_cpu_mask

from .conftest import board_facts


def test_the_r4s_has_a53_cores_0_to_3_at_1_4_ghz_and_a72_cores_4_5_at_1_8_ghz(
    r4s: Facts,
) -> None:
    little, big = r4s.clusters
    assert (little.cpus, little.core, little.max_khz, little.policy) == (
        (0, 1, 2, 3),
        "Cortex-A53",
        1416000,
        "policy0",
    )
    assert (big.cpus, big.core, big.max_khz, big.policy) == (
        (4, 5),
        "Cortex-A72",
        1800000,
        "policy4",
    )
    assert r4s.fastest_cluster == big
    assert r4s.cpu_count == 6 and r4s.cpufreq


def test_the_r2s_has_four_equal_a53_cores_and_no_fastest_cluster(r2s: Facts) -> None:
    (cluster,) = r2s.clusters
    assert cluster.cpus == (0, 1, 2, 3) and cluster.core == "Cortex-A53"
    assert r2s.fastest_cluster is None


def test_an_x86_vm_is_grouped_by_model_name_without_cpufreq(vm: Facts) -> None:
    (cluster,) = vm.clusters
    assert cluster.core == "AMD EPYC" and cluster.part is None
    assert cluster.max_khz is None and not vm.cpufreq
    assert cluster.capacity == 1024


def test_cpu_lists_and_masks() -> None:
    assert parse_cpu_list("0-3,6") == (0, 1, 2, 3, 6)
    assert parse_cpu_list("4 5") == (4, 5)
    assert parse_cpu_list("x") is None
    assert parse_cpu_mask("3f") == (0, 1, 2, 3, 4, 5)
    assert parse_cpu_mask("00000000,00000030") == (4, 5)
    assert parse_cpu_mask("0") == ()
    assert parse_cpu_mask(None) is None


def test_the_rk3588s_a76s_in_two_policies_are_both_fastest() -> None:
    rk3588 = board_facts("rk3588")
    assert [(c.cpus, c.core, c.policy, c.max_khz) for c in rk3588.clusters] == [
        ((0, 1, 2, 3), "Cortex-A55", "policy0", 1800000),
        ((4, 5), "Cortex-A76", "policy4", 2400000),
        ((6, 7), "Cortex-A76", "policy6", 2400000),
    ]
    assert [c.cpus for c in rk3588.fastest_clusters] == [(4, 5), (6, 7)]
    assert rk3588.fastest_cluster is None
