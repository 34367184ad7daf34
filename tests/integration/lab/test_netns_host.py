"""NetnsHost runs programs and reads files as the lab namespace sees them."""

from __future__ import annotations

import time

import pytest
from lab_helpers import MakeLab

from wirespeed.errors import HostError, MissingToolError
from wirespeed.hosts.netns import NetnsHost
from wirespeed.hosts.sockets import listening
from wirespeed.model import Proto, Role, Topology

pytestmark = pytest.mark.root


def test_proc_and_sys_show_the_namespace_not_the_machine(make_lab: MakeLab) -> None:
    lab = make_lab(Topology.ROUTER)
    dut = lab.hosts[Role.DUT]
    assert "lan:" in dut.read_file("/proc/net/dev")
    assert "wan:" in dut.read_file("/proc/net/dev")
    assert dut.read_file("/sys/class/net/wan/mtu").strip() == "1500"
    assert dut.read_file("/proc/sys/net/ipv4/ip_forward").strip() == "1"
    client = lab.hosts[Role.CLIENT]
    assert client.read_file("/proc/sys/net/ipv4/ip_forward").strip() == "0"
    with pytest.raises(FileNotFoundError):
        client.read_file("/sys/class/net/wan/mtu")


def test_write_file_changes_the_namespace_knob(make_lab: MakeLab) -> None:
    lab = make_lab(Topology.BRIDGE)
    client = lab.hosts[Role.CLIENT]
    client.write_file("/proc/sys/net/ipv4/tcp_notsent_lowat", "131072")
    assert client.read_file("/proc/sys/net/ipv4/tcp_notsent_lowat").strip() == "131072"
    client.write_file("/sys/class/net/eth0/tx_queue_len", "500")
    assert client.read_file("/sys/class/net/eth0/tx_queue_len").strip() == "500"


def test_a_server_in_the_namespace_is_seen_listening(make_lab: MakeLab) -> None:
    lab = make_lab(Topology.BRIDGE)
    server = lab.hosts[Role.SERVER]
    process = server.start(["iperf3", "-s", "-p", "15701"])
    try:
        deadline = time.monotonic() + 5
        while not listening(server, process.pid, 15701, Proto.TCP):
            assert time.monotonic() < deadline
            time.sleep(0.005)
        assert not listening(server, process.pid, 15702, Proto.TCP)
    finally:
        process.stop()
    assert not listening(server, process.pid, 15701, Proto.TCP)


def test_starting_a_program_costs_little(make_lab: MakeLab) -> None:
    lab = make_lab(Topology.ENDPOINT)
    client = lab.hosts[Role.CLIENT]
    started = time.monotonic()
    for _ in range(20):
        assert client.run(["true"]).returncode == 0
    per_program = (time.monotonic() - started) / 20
    assert per_program < 0.05, f"{per_program * 1000:.1f} ms per program"


def test_missing_program_and_missing_namespace_are_explained(make_lab: MakeLab) -> None:
    lab = make_lab(Topology.ENDPOINT)
    with pytest.raises(MissingToolError, match="no-such-tool"):
        lab.hosts[Role.CLIENT].start(["no-such-tool"])
    with pytest.raises(HostError, match="does not exist"):
        NetnsHost("wirespeed-no-such-lab-client").run(["true"])
