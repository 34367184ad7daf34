"""`wirespeed lab up --queue 40ms`: the DUT's shapers hold 40 ms, the ends have none, and
`lab status` (text and JSON) says so."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from support.cli import run_cli
from wirespeed.lab.shaping import queue_limit_bytes

pytestmark = [pytest.mark.root]


def qdiscs(namespace: str) -> str:
    return subprocess.run(
        ["tc", "-n", namespace, "qdisc", "show"], capture_output=True, text=True, check=True
    ).stdout


def test_lab_up_with_a_queue_shapes_the_dut_alone_and_records_it() -> None:
    name = f"latency-cli-{os.getpid()}"
    try:
        status, out, err = run_cli(
            "lab", "up", "--name", name, "--topology", "router", "--link", "100mbit",
            "--queue", "40ms",
        )  # fmt: skip
        assert status == 0, err
        assert f"lab {name} is up: router, link 100mbit, queue 40ms, MTU 1500" in out
        dut = qdiscs(f"wirespeed-{name}-dut")
        assert dut.count("tbf") == 2 and "rate 100Mbit" in dut
        # tc shows the limit as the latency beyond the burst (limit = rate x lat + burst),
        # in microseconds: rounded, so within a few bytes.
        shown = subprocess.run(
            ["tc", "-n", f"wirespeed-{name}-dut", "-j", "qdisc", "show", "dev", "wan"],
            capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip
        (tbf,) = [q for q in json.loads(shown) if q["kind"] == "tbf"]
        options = tbf["options"]
        limit = options["rate"] * options["lat"] / 1e6 + options["burst"]
        assert limit == pytest.approx(queue_limit_bytes(100_000_000, 1500, 0.040), abs=20)
        for end in ("client", "server"):
            assert "tbf" not in qdiscs(f"wirespeed-{name}-{end}")
        status, out, _ = run_cli("lab", "status")
        assert f"{name}: router, 100mbit (100.0 Mbit/s), queue 40ms, MTU 1500, complete" in out
        status, out, _ = run_cli("lab", "status", "--json")
        (mine,) = [lab for lab in json.loads(out)["labs"] if lab["name"] == name]
        assert mine["link"]["queue"] == pytest.approx(0.040)
    finally:
        run_cli("lab", "down", name)
    assert not [n for n in os.listdir("/run/netns") if n.startswith(f"wirespeed-{name}-")]


def test_a_queue_without_a_unit_is_a_usage_error() -> None:
    status, _, err = run_cli("lab", "up", "--name", "latency-bad", "--queue", "40")
    assert status == 2 and "with its unit" in err
