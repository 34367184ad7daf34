"""Integration tests run real tools in real namespaces: root only.

`make_lab` builds labs with names unique to this test process (so parallel runs and a
lab someone built by hand are never touched) and tears every one of them down after
the test, whether it passed, failed or was interrupted while building. `lab_name` is a
name of that kind for a lab a `wirespeed` process builds, removed after the test too.
`foreign_bench` builds benches of real machines without the lab's code
(tests/support/foreign_bench.py), removed after the test whatever happened.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import os
import signal
from collections.abc import Callable, Iterator

import pytest

from support.foreign_bench import ForeignBench
from wirespeed.errors import LabError
from wirespeed.lab.lab import Lab, LabSpec, down_lab
from wirespeed.lab.links import parse_link
from wirespeed.model import ForwardingLimit, Topology

_serial = itertools.count(1)

# The Ctrl-C tests send SIGINT to a wirespeed they start, which inherits this process's
# disposition: ignored when the suite runs as a background job of a script (or under
# nohup-like wrappers), and then the signal would be lost. A Python handler here becomes
# the default in every child at exec.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.geteuid() == 0:
        return
    skip = pytest.mark.skip(reason="needs root (namespaces, veth, tc, nftables)")
    for item in items:
        if "root" in item.keywords:
            item.add_marker(skip)


# WIRESPEED_TEST_LAB_PREFIX names the tests' labs apart from others on a shared machine.
_LAB_PREFIX = os.environ.get("WIRESPEED_TEST_LAB_PREFIX", "t")


def unique_lab_name(label: str) -> str:
    return f"{_LAB_PREFIX}{os.getpid()}-{next(_serial)}-{label}"


MakeLab = Callable[..., Lab]


@pytest.fixture
def lab_name(request: pytest.FixtureRequest) -> Iterator[str]:
    label = request.node.name[5:13].strip("_").replace("_", "-")
    name = f"soak-{os.getpid() % 100000}-{label}".rstrip("-")
    yield name
    down_lab(name, force=True)


@pytest.fixture
def make_lab() -> Iterator[MakeLab]:
    names: list[str] = []
    labs: list[Lab] = []

    def make(
        topology: Topology | str,
        link: str = "unshaped",
        mtu: int = 1500,
        dut_access: str = "netns",
        limit: ForwardingLimit | None = None,
    ) -> Lab:
        """dut_access="ssh": the DUT is also a dropbear + busybox device (lab.ssh_host);
        limit: the most the DUT forwards."""
        topology = Topology(topology)
        name = unique_lab_name(topology.value)
        names.append(name)  # before building: a half-built lab is removed too
        spec = LabSpec(topology, parse_link(link, mtu), name=name, dut_access=dut_access)
        lab = Lab.up(dataclasses.replace(spec, limit=limit))
        labs.append(lab)
        return lab

    try:
        yield make
    finally:
        for lab in labs:
            with contextlib.suppress(LabError):
                lab.down()  # closes its SSH session first; down_lab below reports errors
        for name in names:
            down_lab(name)


MakeBench = Callable[..., ForeignBench]


@pytest.fixture
def foreign_bench() -> Iterator[MakeBench]:
    """`foreign_bench(limit_pps=15000, forward=(5800, 5899), pc_wan_port=False,
    root_ports=False, cpu_board=None)`: a bench of its own for the test, removed after
    it."""
    benches: list[ForeignBench] = []

    def make(**options: object) -> ForeignBench:
        bench = ForeignBench.build(**options)  # type: ignore[arg-type]
        benches.append(bench)
        return bench

    try:
        yield make
    finally:
        for bench in benches:
            bench.down()
