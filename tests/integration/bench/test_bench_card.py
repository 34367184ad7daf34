"""A device card of the foreign bench's router (an OpenWrt-like busybox device behind
SSH, with iperf and nothing else of wirespeed's), its ends the laptop on its LAN and
the workstation beyond its WAN: the plan file of the bench is the card's TARGET.

The router has neither openssl nor 7-zip: the compute part is skipped, each test with
the package that brings its program, and the card goes on. The VPN part runs WireGuard
and OpenVPN from the laptop to the workstation across the router (the ends' tools are
this machine's Debian packages: the hosts are its namespaces). The forwarding search
over SSH is left out (`--skip`: each of its trials costs SSH round trips;
tests/integration/bench/test_bench_nat_search.py searches this router).
Every other part measures through the router, whose forwarding limit bounds UDP.
`--tuned` finds nothing `tune suggest` would change there: the card runs once."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from bench_runs import HOSTS, WIRESPEED, MakeBench

from support.foreign_bench import ROUTER_LAN, ROUTER_WAN, TCP_CEILING_BPS, ForeignBench

pytestmark = [pytest.mark.root, pytest.mark.slow]

LIMIT = 15_000  # packets/s the router forwards
PLAN = HOSTS + (
    "paths:\n"
    "  - {name: NAT, topology: nat, client: laptop, server: workstation, dut: router, "
    "link: gbe}\n"
    "tests: [{id: t}]\n"
)


def test_the_router_s_card_over_ssh_skips_what_it_lacks(
    foreign_bench: MakeBench, tmp_path: Path
) -> None:
    bench = foreign_bench(limit_pps=LIMIT, tunnel_tools=True)
    plan = tmp_path / "bench.yaml"
    plan.write_text(PLAN)
    document = tmp_path / "card.json"
    argv = [
        *WIRESPEED, "card", str(plan), "--duration", "1", "--skip", "forwarding", "--tuned",
        "--ssh-config", str(bench.ssh_config), "--db", str(tmp_path / "runs.db"),
        "-o", str(document), "-q",
    ]  # fmt: skip
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600, check=False)

    assert done.returncode == 0, done.stderr
    assert "openssl is not installed on root@router" in done.stderr
    assert "opkg install openssl-util" in done.stderr and "p7zip" in done.stderr
    card = json.loads(document.read_text())["card"]
    parts = {part["key"]: part for part in card["parts"]}
    assert "openssl-util" in parts["compute"]["skipped"]
    assert "--skip" in parts["forwarding"]["skipped"]
    for key in ("throughput", "latency", "vpn", "device"):
        assert parts[key]["skipped"] is None and parts[key]["figures"], key
    # Through the router's limit of 15,000 packets/s (TCP's ACKs count too); UDP's
    # full-size datagrams: 15,000 a second are 180 Mbit/s.
    figures = {f["label"]: f["value"] for f in parts["throughput"]["figures"]}
    assert 0 < figures["TCP up"] < 200e6 and 150e6 < figures["UDP"] < 190e6
    # Each tunnel's TCP, encrypted on this machine's cores and through the router's
    # limit: measured, and not above the ceiling its card line reports.
    tunnels = {f["label"]: f for f in parts["vpn"]["figures"]}
    assert set(tunnels) == {"WireGuard", "OpenVPN"}, tunnels
    for figure in tunnels.values():
        share = float(figure["ceiling"].split(" %")[0])
        assert figure["value"] > 0 and 0 < share <= 100.5, figure
    # --tuned: the router's NICs are not ones `tune suggest` places (it found none), so
    # the card says so and runs once.
    assert "tune suggest has nothing to change on root@router" in done.stderr
    assert card["tuned"][0].startswith("not tuned: tune suggest has nothing to change")
    assert not any(f.get("tuned") for f in parts["throughput"]["figures"])
    facts = {f["label"] for f in parts["facts"]["figures"]}
    assert {"board", "cpus"} <= facts  # read over SSH before the run


# docs/bench.md's bench: this PC's two ports cabled to the router's LAN and WAN, the
# router reached (and asked what it is and has) only through the LAN port.
PORTS_PLAN = """\
hosts:
  lan-side: {{port: {a}, address: 192.168.7.60/24, gateway: 192.168.7.1}}
  wan-side: {{port: {b}, address: 198.51.100.4/24, gateway: {wan}}}
{router}paths:
  - {{name: Br0, topology: nat, client: lan-side, server: wan-side{dut}, link: gbe}}
tests: [{{id: t}}]
"""


def _ports(bench: ForeignBench) -> dict[str, object]:
    found: dict[str, object] = {}
    for port in (bench.port_a, bench.port_b):
        shown = subprocess.run(
            ["ip", "-j", "addr", "show", "dev", port], capture_output=True, text=True, check=True
        )
        (link,) = json.loads(shown.stdout)
        found[port] = (link["mtu"], link["operstate"], link["addr_info"])
    return found


def test_a_card_on_two_ports_asks_the_router_through_the_lan_port(
    foreign_bench: MakeBench, tmp_path: Path
) -> None:
    bench = foreign_bench(root_ports=True)
    before = _ports(bench)
    plan = tmp_path / "two-ports.yaml"
    router = f"  router: {{address: {ROUTER_WAN}, ssh: root@{ROUTER_LAN}}}\n"
    plan.write_text(
        PORTS_PLAN.format(a=bench.port_a, b=bench.port_b, wan=ROUTER_WAN, router=router,
                          dut=", dut: router")
    )  # fmt: skip
    document = tmp_path / "card.json"
    argv = [
        *WIRESPEED, "card", str(plan), "--duration", "1", "--skip", "forwarding,latency",
        "--ssh-config", str(bench.ssh_config), "--db", str(tmp_path / "runs.db"),
        "-o", str(document),
    ]  # fmt: skip
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600, check=False)

    assert done.returncode == 0, done.stderr
    # Asked before the run, through port A as the run logs in: it has no openssl.
    assert f"root@{ROUTER_LAN} is reached through {bench.port_a}" in done.stderr
    assert f"openssl is not installed on root@{ROUTER_LAN}" in done.stderr
    card = json.loads(document.read_text())["card"]
    parts = {part["key"]: part for part in card["parts"]}
    assert "openssl-util" in parts["compute"]["skipped"]
    assert {"board", "cpus"} <= {f["label"] for f in parts["facts"]["figures"]}
    figures = {f["label"]: f["value"] for f in parts["throughput"]["figures"]}
    assert 0 < figures["TCP up"] <= 1.01 * TCP_CEILING_BPS  # through the router: measured
    assert _ports(bench) == before  # given back after the questions and after the run

    # The same bench without the router as a host: no device for compute, said so.
    plan.write_text(
        PORTS_PLAN.format(a=bench.port_a, b=bench.port_b, wan=ROUTER_WAN, router="", dut="")
    )
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    assert "skipped: crypto and compute: Br0 names no device (dut:)" in done.stderr
    parts = {part["key"]: part for part in json.loads(document.read_text())["card"]["parts"]}
    assert "names no device" in parts["compute"]["skipped"]
    assert parts["throughput"]["figures"]
    assert _ports(bench) == before
