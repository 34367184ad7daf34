"""The card's plan: a target and options in, an ordinary plan out, every part a test of
fixed id, what cannot run left out with its reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.cli import run_cli
from wirespeed.card.availability import bench_skips, tool_skips
from wirespeed.card.plan_text import FULL, QUICK, CardOptions, card_marker, card_plan
from wirespeed.card.target import CardBench, Ends, LabOptions, card_bench
from wirespeed.errors import UsageError
from wirespeed.model import Topology


def lab(target: str = "lab", **limits: object) -> CardBench:
    return card_bench(target, LabOptions(**limits), Ends())  # type: ignore[arg-type]


def test_the_lab_card_runs_every_part_on_its_paths() -> None:
    plan = card_plan(lab("lab:nat:fe", forward_pps=15000, queue="40ms"), CardOptions())
    assert [t.id for t in plan.tests] == [
        "tcp-up", "tcp-down", "tcp-both", "udp", "fwd", "rrul", "vpn", "crypto", "7z",
    ]  # fmt: skip
    assert [p.name for p in plan.paths] == ["NAT", "WireGuard", "OpenVPN", "DUT"]
    assert plan.lab is not None and plan.lab.link.rate_bps == 100_000_000
    assert plan.lab.limit is not None and plan.lab.limit.pps == 15000
    fwd = next(t for t in plan.tests if t.id == "fwd")
    assert fwd.search is not None
    options = fwd.search.as_dict()
    assert options["frame_sizes"] == [64, 512, 1518] and options["directions"] == ["in", "out"]
    udp = next(t for t in plan.tests if t.id == "udp")
    assert udp.spec.rate == 100_000_000  # the lab's line rate, not the seeds' 1000M
    marker = card_marker(plan.text)
    assert marker is not None and marker["profile"] == "quick" and marker["routed"] == "NAT"


def test_full_runs_longer_and_three_times() -> None:
    quick = card_plan(lab(), CardOptions(profile=QUICK))
    full = card_plan(lab(), CardOptions(profile=FULL))
    assert quick.repetitions == 1 and full.repetitions == 3
    assert {t.spec.duration for t in full.tests if t.yields_flows} == {30}
    assert {t.spec.duration for t in quick.tests if t.id.startswith("tcp")} == {5}


def test_a_router_lab_searches_up_and_down_and_a_look_is_short() -> None:
    plan = card_plan(lab("lab:router"), CardOptions(duration=2, frame_sizes=(64,)))
    fwd = next(t for t in plan.tests if t.id == "fwd")
    assert fwd.search is not None
    assert fwd.search.as_dict()["directions"] == ["up", "down"]
    assert fwd.search.as_dict()["final_duration"] == 2
    sevenzip = next(t for t in plan.tests if t.id == "7z")
    assert sevenzip.bench is not None and sevenzip.bench.as_dict()["threads"] == ["all"]


def test_a_skipped_part_has_no_test_and_its_reason_is_kept() -> None:
    skipped = {"vpn": "vpn: left out", "7z": "7-zip benchmark: 7zz is not installed"}
    plan = card_plan(lab(), CardOptions(skipped=skipped))
    assert "vpn" not in [t.id for t in plan.tests] and "7z" not in [t.id for t in plan.tests]
    assert "crypto" in [t.id for t in plan.tests]
    assert [p.name for p in plan.paths] == ["NAT", "DUT"]
    assert (card_marker(plan.text) or {})["skipped"] == skipped


def test_a_device_alone_is_an_endpoint_without_a_forwarding_rate_or_tunnels() -> None:
    bench = card_bench("root@192.168.1.1", LabOptions(), Ends())
    assert bench.topology is Topology.ENDPOINT and bench.device_ssh == "root@192.168.1.1"
    skips = bench_skips(bench)
    assert set(skips) == {"forwarding", "vpn"}
    assert "--client and --server" in skips["forwarding"]
    plan = card_plan(bench, CardOptions(skipped=skips))
    assert plan.hosts["device"].ssh is not None
    assert [t.id for t in plan.tests] == [
        "tcp-up",
        "tcp-down",
        "tcp-both",
        "udp",
        "rrul",
        "crypto",
        "7z",
    ]


def test_a_device_between_two_ends_is_searched_where_its_link_is_known() -> None:
    ends = Ends(client="here", server="root@10.0.0.2", link="gbe")
    bench = card_bench("root@192.168.1.1", LabOptions(), ends)
    assert bench.topology is Topology.NAT and bench.forwards
    assert bench_skips(bench) == {}
    plan = card_plan(bench, CardOptions(skipped=bench_skips(bench)))
    assert plan.paths[0].dut == "device" and plan.paths[0].link is not None
    without_link = card_bench("root@192.168.1.1", LabOptions(), Ends("here", "root@10.0.0.2"))
    assert "--link" in bench_skips(without_link)["forwarding"]


def test_a_plan_file_gives_its_bench(tmp_path: Path) -> None:
    plan_file = tmp_path / "bench.yaml"
    plan_file.write_text(
        "hosts:\n"
        "  pc: {}\n"
        "  far: {ssh: root@10.0.0.2}\n"
        "  r4s: {ssh: root@192.168.2.1}\n"
        "paths:\n"
        "  - {name: WAN, topology: endpoint, client: pc, server: r4s}\n"
        "  - {name: routed, topology: nat, client: pc, server: far, dut: r4s, link: gbe}\n"
        "tests: [{id: t}]\n"
    )
    bench = card_bench(str(plan_file), LabOptions(), Ends())
    assert bench.routed["name"] == "routed" and bench.device_ssh == "root@192.168.2.1"
    assert bench.device == {"name": "DUT", "topology": "device", "dut": "r4s"}
    chosen = card_bench(str(plan_file), LabOptions(), Ends(), path="WAN")
    assert chosen.topology is Topology.ENDPOINT
    with pytest.raises(UsageError, match="no traffic path of that name"):
        card_bench(str(plan_file), LabOptions(), Ends(), path="nope")


@pytest.mark.parametrize(
    "hosts",
    [
        # docs/bench.md's two ports, without the router as a host
        "  lan-side: {port: enp3s0, address: 192.168.2.50/24, gateway: 192.168.2.1}\n"
        "  wan-side: {port: enp4s0, address: 192.168.0.2/24, gateway: 192.168.0.62}\n",
        "  laptop: {}\n  workstation: {ssh: me@192.168.0.2}\n",
    ],
)
def test_a_bench_with_no_dut_leaves_compute_out_with_a_line(tmp_path: Path, hosts: str) -> None:
    """Nothing names the device the benchmarks would run on: the card goes on without
    them, saying so, instead of a plan error of its own making."""
    ends = (
        "client: lan-side, server: wan-side"
        if "port" in hosts
        else ("client: laptop, server: workstation")
    )
    plan_file = tmp_path / "bench.yaml"
    plan_file.write_text(
        f"hosts:\n{hosts}paths:\n  - {{name: Br0, topology: nat, {ends}, link: gbe}}\n"
        "tests: [{id: t}]\n"
    )
    status, out, err = run_cli("card", str(plan_file), "--print-plan")
    assert status == 0, err
    assert "skipped: crypto and compute: Br0 names no device (dut:)" in err
    assert '"id": "crypto"' not in out and '"topology": "device"' not in out
    assert '"id": "tcp-up"' in out


@pytest.mark.parametrize(
    ("target", "lab_options", "ends", "said"),
    [
        ("lab:cloud", LabOptions(), Ends(), "no topology 'cloud'"),
        ("lab:device", LabOptions(), Ends(), "no topology 'device'"),
        ("lab:nat:slow", LabOptions(), Ends(), "lab:nat:slow"),
        ("lab:nat:fe:x", LabOptions(), Ends(), "lab:nat:fe:x: write lab, lab:TOPOLOGY or"),
        ("lab", LabOptions(), Ends(client="here"), "--client"),
        ("root@r4s", LabOptions(forward_pps=1000), Ends(), "--forward-pps"),
        ("root@r4s", LabOptions(), Ends(client="here"), "--server: a bench through"),
        ("root@r4s", LabOptions(), Ends(topology=Topology.ROUTER), "needs its two ends"),
        ("bad target!", LabOptions(), Ends(), "bad target!"),
    ],
)
def test_a_target_it_cannot_read_is_a_usage_error(
    target: str, lab_options: LabOptions, ends: Ends, said: str
) -> None:
    with pytest.raises(UsageError, match=said.replace("(", r"\(")):
        card_bench(target, lab_options, ends)


def test_a_missing_program_skips_its_test_naming_the_package() -> None:
    installed = {"wg", "openvpn", "openssl"}
    skips = tool_skips(lambda p: p in installed, "this machine", tunnels=True)
    assert set(skips) == {"WireGuard", "7z"}
    assert (
        "wireguard-go" in skips["WireGuard"]
        and "apt-get install wireguard-go" in skips["WireGuard"]
    )
    assert "7zip" in skips["7z"] and "p7zip" in skips["7z"]
    on_device = tool_skips(lambda p: False, "root@r4s", tunnels=False)
    assert set(on_device) == {"crypto", "7z"} and "openssl-util" in on_device["crypto"]


def test_print_plan_shows_the_plan_and_runs_nothing(tmp_path: Path) -> None:
    expect = tmp_path / "expect.yaml"
    expect.write_text('fwd: {NDR: {frame: 64, value: ">= 14k"}}\n')
    status, out, err = run_cli(
        "card", "lab:nat", "--forward-pps", "15000", "--expect", str(expect), "--print-plan"
    )
    assert status == 0, err
    assert out.startswith("# wirespeed card: lab nat, gbe, 15,000 pps (quick)")
    assert '"expect": {"NDR": {"frame": 64, "value": ">= 14k"}}' in out


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--expect", "{missing}"], "--expect {missing}: no such file"),
        (["--expect", "{unknown}"], "--expect {unknown}: the card has no test nope"),
        (["--expect", "{bad}"], "--expect {bad}:1:7: fwd: NDR: test 'fwd' has no frame '1500 B'"),
        (["--expect", "{rate}"], "--expect {rate}:1:10: tcp-up: goodput: not a rate: 'lots'"),
        (["--expect", "{yaml}"], "--expect {yaml}:2:1: not valid YAML: expected ',' or ']'"),
        (["--skip", "heat"], "--skip heat: no part heat"),
        (
            ["--skip", "throughput,forwarding,latency,vpn,compute"],
            "the card has no part left to measure: --skip throughput,forwarding,latency,vpn,"
            "compute leaves out the rest",
        ),
        (["--frame-sizes", "big"], "--frame-sizes big: give frame sizes in bytes"),
        (["--frame-sizes", "64,99999"], "--frame-sizes 64,99999: 99999 B is above"),
        (["--duration", "0"], "--duration must be positive"),
        (["--duration", "nan"], "--duration nan: give a number of seconds"),
        (
            ["--duration", "5000"],
            "--duration 5000: the forwarding search's full-length trials: must be at most 3600",
        ),
        (["--repeat", "1000000"], "--repeat 1000000: must be at most 1000, got 1000000"),
        (["--forward-pps", "0"], "--forward-pps 0: must be at least 1, got 0"),
        (["--forward-rate", "lots"], "--forward-rate lots: not a rate: 'lots'"),
        (["--queue", "x"], "--queue x: not a delay: 'x'"),
        (["--mtu", "10"], "--mtu 10: must be at least 68, got 10"),
    ],
)
def test_bad_options_exit_2_naming_the_option_typed(
    tmp_path: Path, argv: list[str], said: str
) -> None:
    """Each names the option (or the --expect file's line) the user wrote, never a line
    of the plan the card made of them, nor a YAML library's own text."""
    (tmp_path / "unknown.yaml").write_text("nope: {goodput: '>= 1G'}\n")
    (tmp_path / "bad.yaml").write_text("fwd: {NDR: {frame: 1500, value: '>= 1k'}}\n")
    (tmp_path / "rate.yaml").write_text("tcp-up: {goodput: '>= lots'}\n")
    (tmp_path / "yaml.yaml").write_text('fwd: {NDR: [{frame: 64, value: ">= 14k"}\n')
    files = {
        f"{{{name}}}": str(tmp_path / f"{name}.yaml")
        for name in ("missing", "unknown", "bad", "rate", "yaml")
    }
    status, _, err = run_cli("card", "lab", "--print-plan", *(files.get(a, a) for a in argv))
    assert status == 2, err
    for placeholder, path in files.items():
        said = said.replace(placeholder, path)
    assert f"wirespeed: error: {said}" in err
    assert "<card" not in err and "http" not in err and "Traceback" not in err
