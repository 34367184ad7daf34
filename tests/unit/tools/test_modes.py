"""Which directions each tool can measure through which path."""

from __future__ import annotations

import pytest

from wirespeed.model import Direction, Tool, Topology
from wirespeed.tools.modes import check_direction
from wirespeed.trial_kind import tools


def test_iperf2_dual_through_nat_is_refused_with_the_alternatives() -> None:
    problem = check_direction(Tool.IPERF2, Direction.DUAL, Topology.NAT)
    assert problem is not None and "\n" not in problem
    assert "NAT" in problem
    for alternative in ("--full-duplex", "-R", "iperf3 bidir"):
        assert alternative in problem


def test_iperf3_has_no_dual_and_points_to_bidir() -> None:
    problem = check_direction(Tool.IPERF3, Direction.DUAL, Topology.ROUTER)
    assert problem is not None and "--bidir" in problem


@pytest.mark.parametrize("topology", [*Topology, None])
@pytest.mark.parametrize("direction", [Direction.UP, Direction.DOWN, Direction.BIDIR])
@pytest.mark.parametrize("tool", tools())
def test_up_down_and_bidir_work_everywhere(
    tool: Tool, direction: Direction, topology: Topology | None
) -> None:
    assert check_direction(tool, direction, topology) is None


@pytest.mark.parametrize("topology", [Topology.ENDPOINT, Topology.BRIDGE, Topology.ROUTER, None])
def test_iperf2_dual_works_where_the_server_can_reach_the_client(
    topology: Topology | None,
) -> None:
    assert check_direction(Tool.IPERF2, Direction.DUAL, topology) is None
