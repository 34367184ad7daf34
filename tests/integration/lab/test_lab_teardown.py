"""Teardown leaves nothing: no namespace, no process, no record; twice is fine."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import time
from typing import Any

import pytest
from lab_helpers import MakeLab, unique_lab_name

from wirespeed.errors import LabError
from wirespeed.hosts.netns import NetnsHost
from wirespeed.lab import build as build_module
from wirespeed.lab import record
from wirespeed.lab.build import Command, Step
from wirespeed.lab.claim import LabInUseError
from wirespeed.lab.lab import Lab, LabSpec, attach, down_lab
from wirespeed.lab.links import parse_link
from wirespeed.lab.record import record_path
from wirespeed.lab.system import project_namespaces
from wirespeed.lab.topology import Infra
from wirespeed.model import Role, Topology

pytestmark = pytest.mark.root


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(") ")[1].startswith("Z")  # a zombie is dead
    except FileNotFoundError:
        return True


def test_down_kills_the_processes_inside_and_removes_everything(make_lab: MakeLab) -> None:
    lab = make_lab(Topology.BRIDGE, "gbe")
    sleeper = lab.hosts[Role.SERVER].start(["sleep", "600"])
    lab.down()
    assert sleeper.wait(5) != 0
    assert not any(ns.startswith(f"wirespeed-{lab.name}-") for ns in project_namespaces())
    assert not os.path.exists(record_path(lab.name))
    assert attach(lab.name) is None
    lab.down()  # again: nothing left to do, no error


def test_down_empties_and_removes_the_endpoint_switch_too(make_lab: MakeLab) -> None:
    lab = make_lab(Topology.ENDPOINT, "gbe")
    switch_namespace = lab.namespaces[Infra.SWITCH]
    assert switch_namespace == f"wirespeed-{lab.name}-switch"
    sleeper = NetnsHost(switch_namespace).start(["sleep", "600"])
    lab.down()
    assert sleeper.wait(5) != 0
    assert not any(ns.startswith(f"wirespeed-{lab.name}-") for ns in project_namespaces())


def test_up_removes_a_stale_lab_of_the_same_name_first() -> None:
    name = unique_lab_name("stale")
    spec = LabSpec(Topology.ROUTER, parse_link("fe"), name=name)
    try:
        first = Lab.up(spec)
        # A crashed run: an orphan left running inside the namespace, no handle kept.
        orphan = first.hosts[Role.SERVER].start(["sleep", "600"])
        with Lab.up(spec) as second:
            deadline = time.monotonic() + 5
            while not _gone(orphan.pid):
                assert time.monotonic() < deadline
                time.sleep(0.01)
            assert second.hosts[Role.CLIENT].run(["true"]).returncode == 0
        orphan.stop()
    finally:
        down_lab(name)
    assert not any(ns.startswith(f"wirespeed-{name}-") for ns in project_namespaces())


def test_a_failed_build_raises_lab_error_and_leaves_nothing_behind(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    name = unique_lab_name("broken")
    build_steps = build_module.build_steps

    def failing_steps(*args: Any) -> list[Step]:
        namespace = f"wirespeed-{name}-dut"
        broken = Command(("ip", "-n", namespace, "link", "set", "dev", "nosuch0", "up"))
        return [*build_steps(*args), broken]

    monkeypatch.setattr("wirespeed.lab.lab.build_steps", failing_steps)
    try:
        with pytest.raises(LabError, match="nosuch0"):
            Lab.up(LabSpec(Topology.BRIDGE, parse_link("fe"), name=name))
    finally:
        down_lab(name)
    assert not any(ns.startswith(f"wirespeed-{name}-") for ns in project_namespaces())


def test_up_removes_a_stale_endpoint_switch_and_what_runs_in_it() -> None:
    name = unique_lab_name("stale-switch")
    spec = LabSpec(Topology.ENDPOINT, parse_link("fe"), name=name)
    try:
        first = Lab.up(spec)
        orphan = NetnsHost(first.namespaces[Infra.SWITCH]).start(["sleep", "600"])
        with Lab.up(spec) as second:
            deadline = time.monotonic() + 5
            while not _gone(orphan.pid):
                assert time.monotonic() < deadline
                time.sleep(0.01)
            assert attach(name) is not None
            assert second.namespaces[Infra.SWITCH] in project_namespaces()
        orphan.stop()
    finally:
        down_lab(name)
    assert not any(ns.startswith(f"wirespeed-{name}-") for ns in project_namespaces())


def test_a_handle_leaves_a_lab_its_record_gives_to_another_process(make_lab: MakeLab) -> None:
    lab = make_lab(Topology.BRIDGE, "fe")
    other = subprocess.Popen(["sleep", "60"])  # the run that now owns a lab of that name
    try:
        lab_record = record.load(lab.name)
        assert lab_record is not None and lab_record.owner == lab.owner
        record.save(dataclasses.replace(lab_record, owner=record.process_identity(other.pid)))
        assert lab.down() is False
        assert attach(lab.name) is not None, "a handle removed another process's lab"
        with pytest.raises(LabInUseError):
            down_lab(lab.name)  # nor does removing it by name
        with pytest.raises(LabInUseError):
            Lab.up(LabSpec(Topology.BRIDGE, parse_link("fe"), name=lab.name))
        assert attach(lab.name) is not None
    finally:
        other.kill()
        other.wait()
    # Its owner gone, the lab is an orphan anyone may remove.
    assert down_lab(lab.name)
    assert not any(ns.startswith(f"wirespeed-{lab.name}-") for ns in project_namespaces())


def test_a_run_lab_takes_the_next_free_name_while_a_live_process_holds_its_own() -> None:
    name = unique_lab_name("taken")
    other = subprocess.Popen(["sleep", "60"])
    spec = LabSpec(Topology.ROUTER, parse_link("fe"), name=name)
    try:
        # Claimed by the other process, still building: only its record exists so far.
        record.save(
            record.LabRecord(
                name,
                Topology.ROUTER,
                parse_link("fe"),
                1500,
                owner=record.process_identity(other.pid),
            )
        )
        with Lab.up(spec, owned=True, rename=True) as lab:
            assert lab.name == f"{name}-2"
            assert lab.passed_over == ((name, record.process_identity(other.pid)),)
            assert lab.hosts[Role.CLIENT].run(["true"]).returncode == 0
        assert record.load(name) is not None, "the other process's claim was removed"
    finally:
        other.kill()
        other.wait()
        down_lab(name)
        down_lab(f"{name}-2")
    assert not any(ns.startswith(f"wirespeed-{name}-") for ns in project_namespaces())
