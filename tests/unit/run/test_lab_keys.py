"""A run's labs: one per topology and DUT limit, named after both."""

from __future__ import annotations

from wirespeed.model import ForwardingLimit, PathSpec, Topology
from wirespeed.run.paths import lab_key, lab_name

R2S = ForwardingLimit(pps=15000)
R4S = ForwardingLimit(pps=60000)


def _path(name: str, topology: Topology, limit: ForwardingLimit | None = None) -> PathSpec:
    return PathSpec(name, topology, "client", "server", "dut", limit=limit)


def test_two_nat_paths_with_different_limits_get_two_labs() -> None:
    keys = {lab_key(_path("a", Topology.NAT, R2S)), lab_key(_path("b", Topology.NAT, R4S))}
    assert keys == {(Topology.NAT, R2S), (Topology.NAT, R4S)}
    assert lab_key(_path("c", Topology.NAT, R2S)) == (Topology.NAT, R2S)  # shared


def test_a_device_path_runs_in_the_unlimited_endpoint_lab() -> None:
    assert lab_key(_path("d", Topology.DEVICE)) == (Topology.ENDPOINT, None)


def test_a_limited_lab_is_named_after_its_limit() -> None:
    assert lab_name(None, (Topology.NAT, None)) is None  # Lab.up's default: "nat"
    assert lab_name(None, (Topology.NAT, R2S)) == "nat-15kpps"
    assert lab_name("ci", (Topology.NAT, R2S)) == "ci-nat-15kpps"
    assert lab_name("ci", (Topology.BRIDGE, None)) == "ci-bridge"
