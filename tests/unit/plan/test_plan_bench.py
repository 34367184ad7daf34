"""Benchmarks in a plan: device paths, each tool's options checked by its driver's schema,
and every mix-up of a benchmark with a traffic test pointed at where it is written."""

from __future__ import annotations

import textwrap

import pytest

from wirespeed.model import Tool, Topology
from wirespeed.plan import PlanError, expand, parse_plan
from wirespeed.plan.sources import load_builtin


def problems_of(text: str) -> list[str]:
    with pytest.raises(PlanError) as caught:
        parse_plan(textwrap.dedent(text), source="plan.yaml")
    return [f"{p.line}:{p.column}: {p.message}" for p in caught.value.problems]


MIXED = """
lab: {link: fe}
hosts:
  r4s: {ssh: root@192.168.2.1}
paths:
  - {name: WAN, topology: endpoint}
  - {name: DUT, topology: device}
  - {name: R4S, topology: device, dut: r4s}
tests:
  - {id: "1", tool: iperf3}
  - id: aes
    tool: openssl
    options: {ciphers: [aes-128-cbc], blocks: [1K, 8192]}
"""


def test_a_benchmark_runs_on_the_device_paths_and_iperf_on_the_others() -> None:
    plan = parse_plan(textwrap.dedent(MIXED), source="plan.yaml")
    places = [(t.test.id, t.path.name) for t in expand(plan)]
    assert places == [("1", "WAN"), ("aes", "DUT"), ("aes", "R4S")]
    lab_device = plan.paths[1]
    assert lab_device.topology is Topology.DEVICE and lab_device.dut == "dut"
    assert plan.paths[2].client == plan.paths[2].server == plan.paths[2].dut == "r4s"
    aes = plan.test("aes")
    assert aes.tool is Tool.OPENSSL and aes.bench is not None
    assert aes.bench.as_dict() == {
        "ciphers": ["aes-128-cbc"],
        "blocks": [1024, 8192],
        "evp": "both",
        "seconds": None,
        "multi": None,
        "per_cluster": True,
    }
    assert not plan.warnings


def test_the_built_in_compute_plan_is_the_seeds_table() -> None:
    plan = load_builtin("compute")
    trials = expand(plan)
    assert {t.test.tool for t in trials} == {Tool.OPENSSL, Tool.SEVENZIP}
    assert len(trials) == 2 * 3  # two tests, three repetitions, one device path
    aes = plan.test("aes").bench
    assert aes is not None and aes.option("blocks") == (1024, 8192)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (  # a traffic key in a benchmark
            """
            lab: {link: gbe}
            paths: [{name: DUT, topology: device}]
            tests:
              - {id: aes, tool: openssl, protocol: udp}
            """,
            "5:30: test 'aes': openssl runs on one host: protocol does not apply",
        ),
        (  # a benchmark's option on iperf
            """
            lab: {link: gbe}
            paths: [{name: WAN, topology: endpoint}]
            tests:
              - {id: "1", tool: iperf2, options: {ciphers: [aes-128-cbc]}}
            """,
            "5:29: test '1': options: are a benchmark's or a search's settings",
        ),
        (  # an option the driver does not know, at its own line
            """
            lab: {link: gbe}
            paths: [{name: DUT, topology: device}]
            tests:
              - id: aes
                tool: openssl
                options:
                  cipher: [aes-128-cbc]
            """,
            "8:7: unknown key 'cipher'",
        ),
        (  # a value the driver refuses
            """
            lab: {link: gbe}
            paths: [{name: DUT, topology: device}]
            tests:
              - id: aes
                tool: openssl
                options: {blocks: [3]}
            """,
            "7:24: blocks[0]: block size 3 is outside 16 bytes",
        ),
        (  # a benchmark limited to a traffic path
            """
            lab: {link: gbe}
            paths: [{name: WAN, topology: endpoint}, {name: DUT, topology: device}]
            tests:
              - {id: aes, tool: openssl, paths: [WAN]}
            """,
            "5:38: test 'aes': openssl runs on one host, and 'WAN' is a path of topology endpoint",
        ),
        (  # iperf limited to a device path
            """
            lab: {link: gbe}
            paths: [{name: WAN, topology: endpoint}, {name: DUT, topology: device}]
            tests:
              - {id: "1", tool: iperf3, paths: [DUT]}
            """,
            "5:37: test '1': iperf3 needs a client and a server, and 'DUT' is a device path",
        ),
        (  # a device path with a client
            """
            hosts: {a: {address: 10.0.0.1}, b: {address: 10.0.0.2}}
            paths: [{name: D, topology: device, client: a, dut: b}]
            tests:
              - {id: aes, tool: openssl}
            """,
            "3:45: path 'D' is a device path: benchmarks run on its dut alone, it has no client",
        ),
        (  # a device path with nothing to run on
            """
            paths: [{name: D, topology: device}]
            tests:
              - {id: aes, tool: openssl}
            """,
            "2:9: device path 'D' names no dut and the plan has no lab",
        ),
        (  # a flow figure expected of a benchmark
            """
            lab: {link: gbe}
            paths: [{name: DUT, topology: device}]
            tests:
              - {id: aes, tool: openssl, expect: {goodput: ">= 1M"}}
            """,
            "5:39: unknown measurement 'goodput'",
        ),
    ],
)
def test_a_mix_up_is_pointed_at(text: str, expected: str) -> None:
    found = problems_of(text)
    assert any(p.startswith(expected) for p in found), found
