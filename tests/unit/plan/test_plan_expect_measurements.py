"""`expect:` on any measurement a test yields: named as reports name it, its cells picked
by labels, its value in its own unit; every mistake at its file:line:column."""

from __future__ import annotations

import textwrap

import pytest

from wirespeed.expectations import Comparison
from wirespeed.plan import PlanError, parse_plan

PLAN = """
lab: {link: gbe, dut: {forward_pps: 15000}}
paths:
  - {name: NAT, topology: nat}
  - {name: DUT, topology: device}
tests:
  - id: fwd
    tool: forwarding
    options: {frame_sizes: [64, 1518], directions: [in, out], goals: [{name: NDR, loss: 0}]}
    expect:
      NDR: {frame: 1518, direction: out, value: ">= 14k"}
  - id: aes
    tool: openssl
    options: {ciphers: [aes-256-gcm], blocks: [16, 8K], evp: with, seconds: 1}
    expect:
      AES-256-GCM: [{block: 8K, value: ">= 500 MB/s"}, {block: 16 B, value: "> 100M"}]
  - id: lat
    tool: iperf3
    probes: ping
    paths: [NAT]
    expect:
      goodput: ">= 50M"
      latency increase: "<= 30 ms"
      rtt: {load: loaded, statistic: p50, value: "< 500 us"}
"""
NDR_LINE = 'NDR: {frame: 1518, direction: out, value: ">= 14k"}'


def problems_of(text: str) -> list[str]:
    with pytest.raises(PlanError) as caught:
        parse_plan(textwrap.dedent(text), source="plan.yaml")
    return [f"{p.line}:{p.column}: {p.message} | {p.hint}" for p in caught.value.problems]


def test_ndr_at_a_frame_size_and_direction_is_due_from_that_cell_alone() -> None:
    plan = parse_plan(PLAN)
    (ndr,) = plan.expectations_for("fwd", "NAT", "default")
    assert (ndr.name, ndr.unit, ndr.comparison, ndr.value) == (
        "NDR",
        "pps",
        Comparison.AT_LEAST,
        14e3,
    )
    assert ndr.labels == (("frame", "1518 B"), ("direction", "out"))
    assert ndr.slots == ((("frame", "1518 B"), ("direction", "out")),)
    assert ndr.text == "NDR 1518 B, out >= 14,000 pps"


def test_a_measurement_without_labels_is_due_from_every_cell_the_search_measures() -> None:
    plan = parse_plan(PLAN.replace(NDR_LINE, 'NDR: ">= 14 kpps"'))
    (ndr,) = plan.expectations_for("fwd", "NAT", "default")
    assert ndr.labels == ()
    assert len(ndr.slots) == 4  # 2 frame sizes x 2 directions


def test_openssl_block_sizes_are_written_as_the_plan_writes_them_and_values_in_bytes_per_s() -> (
    None
):
    plan = parse_plan(PLAN)
    big, small = plan.expectations_for("aes", "DUT", "default")
    assert (big.labels, big.value, big.unit) == ((("block", "8 KB"),), 500e6, "B/s")
    assert big.slots == ((("block", "8 KB"), ("api", "EVP")),)
    assert (small.labels, small.value) == ((("block", "16 B"),), 100e6)
    assert big.text == "AES-256-GCM 8 KB >= 500.0 MB/s"


def test_latency_figures_of_a_test_with_probes_in_milliseconds() -> None:
    plan = parse_plan(PLAN)
    goodput, increase, rtt = plan.expectations_for("lat", "NAT", "default")
    assert goodput.slots == ((("flow", "up"),),)
    assert (increase.name, increase.value, increase.unit) == ("latency increase", 30.0, "ms")
    assert increase.slots == ((("way", "round trip"),),)  # up and down only where irtt ran
    assert (rtt.labels, rtt.value) == ((("load", "loaded"), ("statistic", "p50")), 0.5)


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        (
            'NDX: ">= 1k"',
            "11:7: unknown measurement 'NDX' (did you mean 'NDR'?) | test 'fwd' (forwarding) "
            "measures NDR, NDR L2, NDR L1, NDR of ceiling, NDR forwarding rate, search trials "
            "or search time",
        ),
        (
            'NDR: {fram: 64, value: ">= 1k"}',
            "11:13: NDR: unknown label 'fram' (did you mean 'frame'?) | NDR's labels: frame, "
            "direction",
        ),
        (
            'NDR: {frame: 1500, value: ">= 1k"}',
            "11:20: NDR: test 'fwd' has no frame '1500 B' (did you mean '1518 B'?) | its frame "
            "values: 64 B, 1518 B",
        ),
        (
            'NDR: ">= 14 Mbit/s"',
            "11:12: NDR: '14 Mbit/s' is not in NDR's unit: it is packets per second (pps), "
            'write e.g. ">= 14k"',
        ),
        ("NDR: {frame: 64}", '11:12: NDR: the comparison is missing: add value: such as ">= 14k"'),
        ("NDR: 14000", "11:12: NDR: expected a comparison such as"),
        (
            'bufferbloat grade: "<= B"',
            "11:7: bufferbloat grade: a grade is a letter of the latency increase; expect the "
            "increase",
        ),
    ],
)
def test_mistakes_in_a_measurement_are_pointed_at_with_what_to_write(
    written: str, expected: str
) -> None:
    found = problems_of(PLAN.replace(NDR_LINE, written))
    assert any(p.startswith(expected) for p in found), found


def test_a_value_in_another_unit_says_the_measurements_own() -> None:
    text = PLAN.replace('">= 500 MB/s"', '">= 4 Gbit/s"')
    (found,) = problems_of(text)
    assert found.startswith(
        "16:40: AES-256-GCM: '4 Gbit/s' is not in AES-256-GCM's unit: it is bytes per second "
        '(B/s), write e.g. ">= 500 MB/s"'
    )


def test_latency_figures_need_probes() -> None:
    text = PLAN.replace("    probes: ping\n", "")
    found = problems_of(text)
    assert any(
        p.startswith("22:7: unknown measurement 'latency increase'")
        and "with probes: also latency increase, rtt and probe loss" in p
        for p in found
    ), found


def test_a_unixbench_result_and_7zips_mips_by_their_names_and_labels() -> None:
    plan = parse_plan(
        textwrap.dedent("""
        lab: {link: gbe}
        paths: [{name: DUT, topology: device}]
        tests:
          - id: ub
            tool: unixbench
            options: {directory: /root/byte-unixbench/UnixBench}
            expect: {System Benchmarks Index Score: {copies: 1, value: ">= 500"}}
          - id: 7z
            tool: 7zip
            expect: {total: {threads: all, value: ">= 2000 MIPS"}, compress: ">= 2k"}
        """)
    )
    (score,) = plan.expectations_for("ub", "DUT", "default")
    # UnixBench's names come from its output: taken as written, its copies as Run's.
    assert (score.labels, score.value, score.slots) == ((("copies", "1 copy"),), 500.0, ())
    assert score.text == "System Benchmarks Index Score 1 copy >= 500"
    total, compress = plan.expectations_for("7z", "DUT", "default")
    assert (total.labels, total.value) == ((("threads", "all threads"),), 2000.0)
    assert compress.slots == ((("threads", "1 thread"),), (("threads", "all threads"),))


def test_the_energy_per_megabit_of_a_plan_with_power() -> None:
    text = """
        lab: {link: fe}
        power: {meter: "my-meter --csv"}
        paths: [{name: WAN, topology: endpoint}]
        tests:
          - {id: 1, expect: {energy per Mbit: "<= 20 mJ/Mbit", power load: "< 5 W"}}
    """
    energy, load = parse_plan(textwrap.dedent(text)).expectations_for("1", "WAN", "default")
    assert (energy.value, energy.unit, energy.slots) == (20.0, "mJ/Mbit", ((("source", "meter"),),))
    assert (load.value, load.unit) == (5.0, "W")
    without = "\n".join(line for line in text.splitlines() if "power:" not in line)
    found = problems_of(without)
    assert any("unknown measurement 'energy per Mbit'" in p for p in found), found
