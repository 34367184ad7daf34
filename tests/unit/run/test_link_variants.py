"""Network variants on real hosts: what a run refuses before it starts, and how the
interface of a path is found. RPS, XPS and
offloads need the path's DUT over SSH; the MTU goes on whatever hosts wirespeed reaches
(the variant's MTU, not a test's own, which is the lab's)."""

from __future__ import annotations

from pathlib import Path

import pytest

from wirespeed.errors import UsageError
from wirespeed.plan import expand, parse_plan
from wirespeed.run.link_variants import routed_interface
from wirespeed.run.preflight import preflight

PLAN = """
hosts:
  laptop: {{address: 192.168.2.128}}
  workstation: {{address: 192.168.0.2, ssh: root@192.168.0.2}}
  r4s: {{address: 192.168.0.62{dut_ssh}}}
paths: [{{name: Br0, topology: nat, client: laptop, server: workstation, dut: r4s}}]
tests: [{{id: 1{test_mtu}}}]
variants:
  - {{name: stock}}
  - {{name: {variant}}}
"""


def plan_with(variant: str, *, dut_ssh: bool = True, test_mtu: str = "") -> str:
    return PLAN.format(
        dut_ssh=", ssh: root@192.168.2.1" if dut_ssh else "", test_mtu=test_mtu, variant=variant
    )


@pytest.mark.parametrize("variant", ["rps-cpu4, rps: '10'", "no-gro, offloads: {gro: 'off'}"])
def test_steering_on_a_router_without_ssh_is_refused_with_the_way_to_give_it(
    variant: str,
) -> None:
    plan = parse_plan(plan_with(variant, dut_ssh=False))
    with pytest.raises(UsageError, match="its DUT 'r4s' is this machine") as caught:
        preflight(plan, expand(plan))
    assert caught.value.exit_status == 2
    assert caught.value.hint is not None and "dut with ssh:" in caught.value.hint


def test_an_mtu_variant_needs_no_router_over_ssh() -> None:
    # Seed 001's way: the MTU on both PCs, the router left as it is.
    plan = parse_plan(plan_with("mtu512, mtu: 512", dut_ssh=False))
    preflight(plan, expand(plan))


def test_steering_on_a_router_over_ssh_passes_preflight() -> None:
    plan = parse_plan(plan_with("rps-cpu4, rps: '10', mtu: 512"))
    preflight(plan, expand(plan))  # the interfaces are found once logged in


def test_a_tests_own_mtu_on_real_hosts_points_to_a_variant() -> None:
    plan = parse_plan(plan_with("other, rps: '10'", test_mtu=", mtu: 512"))
    with pytest.raises(UsageError, match="a test's `mtu` is set only on the lab") as caught:
        preflight(plan, expand(plan))
    assert caught.value.hint is not None and "mtu: 512}" in caught.value.hint


ROUTE_GET = Path(__file__).resolve().parents[2] / "fixtures" / "ip-route-get"


@pytest.mark.parametrize(
    ("capture", "interface"),
    [
        ("busybox-bridge.txt", "br-lan"),  # an OpenWrt router's LAN
        ("busybox-via-gateway.txt", "eth0"),
        ("iproute2-via-gateway.txt", "eth0"),
        ("iproute2-local.txt", None),  # an address of the host itself carries no path
        ("busybox-unreachable.txt", None),
    ],
)
def test_the_interface_of_a_path_is_read_from_ip_route_get(
    capture: str, interface: str | None
) -> None:
    assert routed_interface((ROUTE_GET / capture).read_text()) == interface
