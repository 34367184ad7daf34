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
`--tuned` finds nothing `tune suggest` would change there: the card runs once.

The card then travels: exported as a bundle (which names none of the bench's machines,
addresses or paths), imported into an empty store elsewhere, exported again byte for
byte, and compared with a card of another router (a lab card of
tests/fixtures/cards/runs.db.xz, on Fast Ethernet): every figure both measured is lined
up, each measured otherwise says which key differs."""

from __future__ import annotations

import gzip
import json
import lzma
import subprocess
from pathlib import Path

import pytest
from bench_runs import HOSTS, WIRESPEED, MakeBench

from support.foreign_bench import (
    PC_LAN,
    ROUTER_LAN,
    ROUTER_WAN,
    TCP_CEILING_BPS,
    WORKSTATION,
    ForeignBench,
)

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
    _the_card_travels(bench, tmp_path)
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


def _wirespeed(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*WIRESPEED, *argv], capture_output=True, text=True, timeout=300, check=False
    )


def _the_card_travels(bench: ForeignBench, tmp_path: Path) -> None:
    store = str(tmp_path / "runs.db")
    bundle = tmp_path / "router.wsr"
    done = _wirespeed("export", "-o", str(bundle), "--db", store)
    assert done.returncode == 0, done.stderr
    text = gzip.decompress(bundle.read_bytes()).decode()
    document = json.loads(text)
    # The router's identity, read over SSH with its busybox alone, is in the bundle.
    (run,) = document["runs"]
    router = next(h for h in run["identity"]["hosts"].values() if "dut" in h.get("role", ""))
    # Its links are veth (no NIC device to name a driver of), shaped by tbf as gigabit
    # Ethernet; NAT's rules in nftables, their connections tracked.
    assert router["kernel"] and "nics" not in router, router
    assert any(" tbf " in qdisc for qdisc in router["qdiscs"]), router
    assert router["firewall_rules"] > 0 and router["conntrack"] >= 0, router
    # Nothing names the bench: its machines' names and namespaces, their addresses,
    # the PC's login, the directory of its keys and ssh_config.
    secrets = (
        bench.pc, bench.router, bench.switch, bench.workstation, bench.prefix,
        "workstation", str(bench.directory), str(bench.ssh_config),
        PC_LAN, ROUTER_LAN, ROUTER_WAN, WORKSTATION, "192.168.7.", "198.51.100.",
    )  # fmt: skip
    for secret in secrets:
        assert secret not in text, secret
    assert "192.0.2." in text  # the addresses are there, as pseudonyms

    # Imported into an empty store on another path, once; exported again, the same.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    other = str(elsewhere / "theirs.db")
    for _ in range(2):
        done = _wirespeed("import", str(bundle), "--db", other)
        assert done.returncode == 0, done.stderr
    assert "is stored already, as run 1" in done.stderr
    again = tmp_path / "again.wsr"
    assert _wirespeed("export", "1", "-o", str(again), "--db", other).returncode == 0
    assert again.read_bytes() == bundle.read_bytes()

    # Beside another router's card: a lab card on Fast Ethernet.
    lab = tmp_path / "lab.db"
    fixture = Path(__file__).resolve().parents[2] / "fixtures" / "cards" / "runs.db.xz"
    lab.write_bytes(lzma.decompress(fixture.read_bytes()))
    lab_bundle = tmp_path / "lab.wsr"
    assert _wirespeed("export", "1", "-o", str(lab_bundle), "--db", str(lab)).returncode == 0
    done = _wirespeed("compare", str(bundle), str(lab_bundle), "--format", "json")
    assert done.returncode == 0, done.stderr
    compared = json.loads(done.stdout)
    rows = [row for part in compared["parts"] for row in part["rows"]]
    both = [row for row in rows if all(cell is not None for cell in row["cells"])]
    assert both, rows
    for row in both:
        said = row["cells"][1].get("not_comparable")
        # The bench's paths are gigabit, the lab card's Fast Ethernet.
        assert said is not None and "link gbe vs fe" in said, row
        assert row["cells"][1]["ratio"] is None
    notes = " ".join(compared["notes"])
    assert "bench: real | lab" in notes and "router.wsr: " in notes and "lab.wsr: " in notes


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
