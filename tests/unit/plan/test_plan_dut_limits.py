"""A plan's lab DUT limits: `lab: {dut: ...}` for every lab path, `dut: {...}` on one."""

from __future__ import annotations

import textwrap

import pytest

from wirespeed.model import ForwardingLimit
from wirespeed.plan import PlanError, parse_plan


def plan_of(text: str):  # type: ignore[no-untyped-def]
    return parse_plan(textwrap.dedent(text), source="plan.yaml")


def problems_of(text: str) -> list[str]:
    """'line:col: message | hint' of each problem."""
    with pytest.raises(PlanError) as caught:
        plan_of(text)
    return [f"{p.line}:{p.column}: {p.message} | {p.hint}" for p in caught.value.problems]


def test_the_labs_dut_limits_every_lab_path_and_a_path_may_set_its_own() -> None:
    plan = plan_of(
        """
        lab: {link: gbe, mtu: 1500, dut: {forward_pps: 15000, forward_rate: 100M}}
        paths:
          - {name: R2S, topology: nat}
          - {name: R4S, topology: nat, dut: {forward_pps: 60000}}
          - {name: Fast, topology: router, dut: {}}
          - {name: WAN, topology: endpoint}
        tests: [{id: 1}]
        """
    )
    limits = {path.name: path.limit for path in plan.paths}
    assert plan.lab is not None
    assert plan.lab.limit == ForwardingLimit(pps=15000, bps=100_000_000)
    assert limits == {
        "R2S": ForwardingLimit(pps=15000, bps=100_000_000),
        "R4S": ForwardingLimit(pps=60000),  # its own dut: replaces the lab's whole
        "Fast": None,
        "WAN": None,  # an endpoint DUT forwards nothing: the lab's default skips it
    }


def test_without_dut_limits_lab_paths_are_unlimited() -> None:
    plan = plan_of("lab: {}\npaths: [{name: N, topology: nat}]\ntests: [{id: 1}]\n")
    assert plan.paths[0].limit is None
    assert plan.paths[0].dut == "dut"


def test_limits_on_a_real_path_are_an_error_at_its_dut() -> None:
    text = """
    hosts: {pc: {}, r4s: {ssh: root@192.168.1.1}, srv: {address: 192.168.2.2}}
    paths: [{name: N, topology: nat, client: pc, server: srv, dut: {forward_pps: 1000}}]
    tests: [{id: 1}]
    """
    (problem,) = problems_of(text)
    assert problem.startswith("3:64: path 'N' runs between real hosts: its dut: names a host")
    assert "leave out client: and server: to run the path in the lab" in problem


def test_a_host_name_on_a_lab_path_is_an_error_at_its_dut() -> None:
    text = """
    lab: {}
    hosts: {r4s: {ssh: root@192.168.1.1}}
    paths: [{name: N, topology: nat, dut: r4s}]
    tests: [{id: 1}]
    """
    (problem,) = problems_of(text)
    assert problem.startswith("4:39: path 'N' names no client or server, so it runs in the lab")
    assert "dut: {forward_pps: N}" in problem


def test_a_limit_on_an_endpoint_path_is_an_error() -> None:
    text = """
    lab: {}
    paths: [{name: WAN, topology: endpoint, dut: {forward_pps: 1000}}]
    tests: [{id: 1}]
    """
    (problem,) = problems_of(text)
    assert problem.startswith("3:46: path 'WAN' is an endpoint path")


def test_a_limit_on_a_device_path_is_an_error() -> None:
    text = """
    lab: {}
    paths: [{name: D, topology: device, dut: {forward_pps: 1000}}]
    tests: [{id: 1, tool: openssl}]
    """
    (problem,) = problems_of(text)
    assert problem.startswith("3:42: path 'D' is a device path")


@pytest.mark.parametrize(
    ("dut", "message"),
    [
        ("{forward_pps: 0}", "forward_pps: must be at least 1, got 0"),
        ("{forward_pps: 15k}", "forward_pps: expected an integer, got '15k'"),
        ("{forward_rate: fast}", "forward_rate: not a rate"),
        ("{forward_ppps: 10}", "unknown key 'forward_ppps'"),
    ],
)
def test_bad_limits_are_errors_at_their_key(dut: str, message: str) -> None:
    (problem,) = problems_of(
        f"lab: {{dut: {dut}}}\npaths: [{{name: N, topology: nat}}]\ntests: [{{id: 1}}]\n"
    )
    assert message in problem
    assert problem.startswith("1:")
    (on_path,) = problems_of(
        f"lab: {{}}\npaths: [{{name: N, topology: nat, dut: {dut}}}]\ntests: [{{id: 1}}]\n"
    )
    assert message in on_path
    assert on_path.startswith("2:")


def test_a_dut_names_its_ring_beside_its_rate() -> None:
    plan = plan_of(
        """
        lab: {link: gbe, queue: 40ms, dut: {forward_pps: 20000, ring: 512}}
        paths: [{name: N, topology: nat}]
        tests: [{id: 1}]
        """
    )
    assert plan.paths[0].limit == ForwardingLimit(pps=20000, ring=512)


@pytest.mark.parametrize("ring", ["0", "1000001", "'many'"])
def test_a_ring_out_of_range_is_an_error_at_its_line(ring: str) -> None:
    (problem,) = problems_of(
        f"lab: {{dut: {{forward_pps: 20000, ring: {ring}}}}}\n"
        "paths: [{name: N, topology: nat}]\ntests: [{id: 1}]\n"
    )
    assert problem.startswith("1:") and "ring" in problem


def test_a_ring_without_a_rate_is_an_error() -> None:
    (problem,) = problems_of(
        "lab: {dut: {ring: 512}}\npaths: [{name: N, topology: nat}]\ntests: [{id: 1}]\n"
    )
    assert problem.startswith("1:") and "neither forward_pps nor forward_rate" in problem
