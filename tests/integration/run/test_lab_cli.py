"""`wirespeed lab up|status|down` as a user types them."""

from __future__ import annotations

import pytest
from lab_runs import unique_prefix

from support.cli import run_cli

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
