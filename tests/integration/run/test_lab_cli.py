"""`wirespeed lab up|status|down` as a user types them."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from lab_runs import unique_prefix

from support.cli import run_cli
from wirespeed.lab.lab import Lab

pytestmark = pytest.mark.root


def test_a_lab_comes_up_shows_in_status_and_goes_down_twice_without_complaint() -> None:
    name = unique_prefix("cli")
    try:
        status, out, _ = run_cli(
            "lab", "up", "--topology", "router", "--link", "fe", "--name", name
        )
        assert status == 0
        assert "iperf3 -c 198.19.1.2" in out  # how to use it by hand
        status, out, _ = run_cli("lab", "status")
        assert f"{name}: router, fe (100.0 Mbit/s), MTU 1500, complete" in out
        assert "lan 198.18.1.1/24, wan 198.19.1.1/24" in out
    finally:
        status, out, _ = run_cli("lab", "down", name)
    assert status == 0 and f"lab {name} removed" in out
    status, out, _ = run_cli("lab", "down", name)
    assert status == 0 and "nothing to remove" in out
    assert f"{name}:" not in run_cli("lab", "status")[1]


def test_an_unknown_link_is_a_usage_error() -> None:
    status, _, err = run_cli("lab", "up", "--link", "gigabit", "--name", unique_prefix("bad"))
    assert status == 2
    assert "unknown link 'gigabit'" in err


def test_lab_status_as_json_gives_each_labs_topology_link_and_addresses(
    make_lab: Callable[..., Lab],
) -> None:
    lab = make_lab("router", link="fe")
    status, out, err = run_cli("lab", "status", "--json")
    assert status == 0, err
    document = json.loads(out)
    assert document["format"] == "wirespeed-lab-status" and document["version"] == 1
    (mine,) = [entry for entry in document["labs"] if entry["name"] == lab.name]
    assert mine["topology"] == "router" and mine["complete"] is True
    assert mine["link"] == {"name": "fe", "rate_bps": 100_000_000, "mtu": 1500, "queue": None}
    assert mine["mtu"] == 1500 and mine["dut_access"] == "netns"
    assert mine["owner"] is None  # built as by `lab up`, not by a run that will remove it
    nodes = {namespace["node"]: namespace for namespace in mine["namespaces"]}
    assert set(nodes) == {"client", "dut", "server"}
    dut = {i["name"]: i["addresses"] for i in nodes["dut"]["interfaces"]}
    assert dut["lan"] == ["198.18.1.1/24"] and dut["wan"] == ["198.19.1.1/24"]


def test_a_lab_up_with_a_forwarding_limit_shows_it_in_status_and_json() -> None:
    name = unique_prefix("lim")
    try:
        status, out, err = run_cli(
            "lab", "up", "--topology", "nat", "--name", name,
            "--forward-pps", "15000", "--forward-rate", "100mbit", "--ring", "500",
        )  # fmt: skip
        assert status == 0, err
        assert (
            "the DUT forwards at most 15000 packets/s and 100.0 Mbit/s, queueing up to 500 packets"
        ) in out
        assert "198.19.1.1:5800-5899 reach the client 198.18.1.2" in out
        status, out, _ = run_cli("lab", "status")
        assert (
            f"{name}: nat, gbe (1.000 Gbit/s), MTU 1500, forwards at most 15000 packets/s "
            "and 100.0 Mbit/s, queueing up to 500 packets, complete"
        ) in out
        document = json.loads(run_cli("lab", "status", "--json")[1])
        (mine,) = [entry for entry in document["labs"] if entry["name"] == name]
        assert mine["limit"] == {
            "label": "15kpps-100mbit-ring500",
            "pps": 15000,
            "bps": 100_000_000,
            "ring": 500,
        }
    finally:
        run_cli("lab", "down", name)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (("--topology", "endpoint", "--forward-pps", "1000"), "in the endpoint topology"),
        (("--forward-pps", "0"), "packet rate must be positive"),
        (("--forward-rate", "fast"), "--forward-rate: not a rate"),
    ],
)
def test_a_limit_that_cannot_be_is_a_usage_error(options: tuple[str, ...], message: str) -> None:
    status, _, err = run_cli("lab", "up", "--name", unique_prefix("bad"), *options)
    assert status == 2
    assert message in err


def test_a_ring_without_a_rate_is_a_usage_error() -> None:
    status, _, err = run_cli("lab", "up", "--name", "ring-bad", "--ring", "500")
    assert status == 2
    assert "--ring" in err and "--forward-pps" in err
