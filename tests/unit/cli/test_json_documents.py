"""The JSON documents of `lab status --json`: a lab a live run owns names that run."""

from __future__ import annotations

import os

from wirespeed.cli.documents import lab_status_document
from wirespeed.lab.lab import LabInfo
from wirespeed.lab.record import process_identity
from wirespeed.model import LinkModel, Topology


def test_a_lab_owned_by_a_live_run_names_its_pid_and_command() -> None:
    info = LabInfo(
        name="h-bridge",
        namespaces=("wirespeed-h-bridge-client", "wirespeed-h-bridge-dut", "stray"),
        topology=Topology.BRIDGE,
        link=LinkModel("fe", 100_000_000),
        mtu=1500,
        addresses={"wirespeed-h-bridge-dut": {"br0": ("198.18.1.1/24",)}},
        dut_access="netns",
        owner=process_identity(),  # this process stands for the run
    )
    (lab,) = lab_status_document([info])["labs"]
    assert lab["owner"]["pid"] == os.getpid() and lab["owner"]["alive"] is True
    assert lab["owner"]["command"].startswith(f"PID {os.getpid()} (")
    assert [n["node"] for n in lab["namespaces"]] == ["client", "dut", None]
    assert lab["namespaces"][1]["interfaces"] == [{"name": "br0", "addresses": ["198.18.1.1/24"]}]
    assert lab["complete"] is False  # no server namespace


def test_a_lab_whose_run_is_gone_says_so() -> None:
    info = LabInfo("x", (), Topology.NAT, None, None, owner="999999999:1")
    (lab,) = lab_status_document([info])["labs"]
    assert lab["owner"] == {"pid": 999999999, "alive": False, "command": None}
    assert lab["link"] is None and lab["topology"] == "nat"
