"""Every tunnel the plan accepts, through the lab, as a user runs it.

kind x ends x outer transport x topology: each placement the plan accepts carries TCP
and UDP both ways within a few % of the tunnel's ceiling (the 100 Mbit/s link's, less
each packet's encapsulation), or is refused when the plan is read with a hint. On one
OpenVPN and one WireGuard path every traffic combination the plan accepts runs too
(tool x protocol x direction), and the endpoint lab once more with the DUT as an SSH
device. Each trial also says what it measured: its tunnel's MTUs and, for OpenVPN, that
it ran without data channel offload; and the tunnel's daemon shows in the DUT's samples.
"""

from __future__ import annotations

import itertools
import json
import statistics
from pathlib import Path
from typing import Any

import pytest
from lab_runs import namespaces_of, unique_prefix

from support.cli import run_cli
from wirespeed.model import Direction, Proto, Tool, Topology, TunnelEnds, TunnelKind
from wirespeed.plan import PlanError, parse_plan

pytestmark = [pytest.mark.root, pytest.mark.slow]

DURATION = 2
# Every packet is encrypted in userspace twice (client and far end) on this machine's two
# cores, beside both iperf ends and whatever else runs. What a 2 s trial can promise
# there with another job taking a whole core, measured by benchmarks/tunnel_spread.py
# (docs/benchmarks.md, "How far below its ceiling a tunnel's short trial lands"): one-way
# flows have a median of 94.8-98.8 % of the ceiling, but now and then one trial is
# starved (TCP down to 65.6 %, UDP to 79.7 %). So each run's one-way figures are held to
# their median (MEDIAN_BELOW) and each figure only to a floor under the worst starved
# trial seen (BELOW by protocol); one below its bounds is measured again, alone.
MEDIAN_BELOW = 0.10
BELOW = {"tcp": 0.40, "udp": 0.25}
ABOVE = 0.01  # rounding of byte counts over a measured span
# Both directions at once through one daemon per end (each direction's ACKs encrypted
# too, iperf2 -d's first flow under BBR): one direction may take most of the tunnel, so
# the two are held together to twice the ceiling (measured 64.9-91.4 %) and each only
# to a floor (one direction measured down to 23.9 % of the ceiling: such a trial is
# what the rerun is for).
TWO_WAY_TOGETHER_BELOW = 0.40
TWO_WAY_BELOW = 0.75
OVERHEAD = 8.0  # beyond the test: the tunnel's keys, handshake and proof, then iperf's own

Tunnel = tuple[TunnelKind, TunnelEnds, Proto]
TUNNELS: list[Tunnel] = [
    (kind, ends, proto)
    for kind, ends, proto in itertools.product(TunnelKind, TunnelEnds, Proto)
    if not (kind is TunnelKind.WIREGUARD and proto is Proto.TCP)  # refused: UDP only
]
TOPOLOGIES = [t for t in Topology if t is not Topology.DEVICE]
REFUSED_PLACEMENTS = {
    (Topology.BRIDGE, TunnelEnds.DUT),  # a bridge routes nothing
    (Topology.ENDPOINT, TunnelEnds.THROUGH),  # nothing beyond the DUT
}


def path_name(tunnel: Tunnel) -> str:
    kind, ends, proto = tunnel
    return f"{kind.value}-{ends.value}-{proto.value}"


def tunnel_yaml(tunnel: Tunnel) -> str:
    kind, ends, proto = tunnel
    transport = ", proto: tcp" if proto is Proto.TCP else ""
    return f"{{kind: {kind.value}, ends: {ends.value}{transport}}}"


# The traffic on each tunnel path: TCP up, UDP down, TCP both ways on one connection.
BASIC: list[Shape] = [
    (Tool.IPERF3, Proto.TCP, Direction.UP),
    (Tool.IPERF3, Proto.UDP, Direction.DOWN),
    (Tool.IPERF2, Proto.TCP, Direction.BIDIR),
]


def shape_id(tool: Tool, proto: Proto, direction: Direction) -> str:
    return f"{tool}-{proto.value}-{direction.value}"


def shape_yaml(tool: Tool, proto: Proto, direction: Direction, paths: list[str]) -> str:
    # 100M offered, above the UDP ceiling; 1372-byte datagrams fit both tunnels' MTU.
    udp = ", rate: 100M, length: 1372" if proto is Proto.UDP else ""
    return (
        f"  - {{id: {shape_id(tool, proto, direction)}, tool: {tool}, "
        f"protocol: {proto.value}, direction: {direction.value}{udp}, paths: [{', '.join(paths)}]}}"
    )


Shape = tuple[Tool, Proto, Direction]


def plan_text(topology: Topology, tunnels: list[Tunnel], traffic: dict[Shape, list[str]]) -> str:
    paths = "\n".join(
        f"  - {{name: {path_name(t)}, topology: {topology.value}, tunnel: {tunnel_yaml(t)}}}"
        for t in tunnels
    )
    tests = "\n".join(
        shape_yaml(tool, proto, direction, [path_name(t) for t in tunnels if path_name(t) in on])
        for (tool, proto, direction), on in traffic.items()
    )
    return (
        "title: every tunnel\nlab: {link: fe}\n"
        f"paths:\n{paths}\ndefaults: {{duration: {DURATION}}}\ntests:\n{tests}\n"
    )


@pytest.mark.parametrize(
    ("topology", "tunnel"), list(itertools.product(TOPOLOGIES, TUNNELS)), ids=str
)
def test_a_placement_is_refused_up_front_only_if_it_cannot_work(
    topology: Topology, tunnel: Tunnel
) -> None:
    text = plan_text(topology, [tunnel], {BASIC[0]: [path_name(tunnel)]})
    try:
        parse_plan(text)
    except PlanError as error:
        assert (topology, tunnel[1]) in REFUSED_PLACEMENTS, str(error)
        (problem,) = error.problems
        assert problem.hint is not None and "ends:" in problem.hint, str(problem)
        return
    assert (topology, tunnel[1]) not in REFUSED_PLACEMENTS


def figure_problems(trial: dict[str, Any]) -> list[str]:
    key = trial["key"]
    if trial["status"] != "ok":
        return [f"{key}: {trial['status']}: {trial['reason']}"]
    problems = []
    took = trial["finished_at"] - trial["started_at"]
    if took > DURATION + OVERHEAD:
        problems.append(f"{key}: took {took:.1f} s for a {DURATION} s test")
    spec = trial["test"]["spec"]
    two_way = spec["direction"] in ("dual", "bidir")
    below = TWO_WAY_BELOW if two_way else BELOW[spec["protocol"]]
    ceiling = trial["ceiling"]["bits_per_second"]
    measured = [f for f in trial["flows"] if f["measured"]]
    if len(measured) != (2 if two_way else 1):
        problems.append(f"{key}: {len(measured)} flows measured, {2 if two_way else 1} asked for")
    for flow in measured:
        goodput = flow["goodput_bps"]
        if not ceiling * (1 - below) <= goodput <= ceiling * (1 + ABOVE):
            problems.append(
                f"{key} {flow['flow']}: {goodput / 1e6:.1f} Mbit/s, ceiling "
                f"{ceiling / 1e6:.1f} (-{below:.0%}/+{ABOVE:.0%})"
            )
    together = sum(flow["goodput_bps"] for flow in measured)
    if two_way and together < 2 * ceiling * (1 - TWO_WAY_TOGETHER_BELOW):
        problems.append(
            f"{key}: both ways {together / 1e6:.1f} Mbit/s together, of twice the ceiling "
            f"{ceiling / 1e6:.1f} (-{TWO_WAY_TOGETHER_BELOW:.0%})"
        )
    return problems


def one_way_shares(document: dict[str, Any]) -> list[float]:
    """Each one-way flow's goodput as a share of its tunnel's ceiling, over the run."""
    return [
        flow["goodput_bps"] / trial["ceiling"]["bits_per_second"]
        for trial in document["trials"]
        if trial["status"] == "ok" and trial["test"]["spec"]["direction"] in ("up", "down")
        for flow in trial["flows"]
        if flow["measured"]
    ]


def run_problems(document: dict[str, Any]) -> list[str]:
    """Each trial's problems, and the run's: its one-way figures' median (a tunnel that
    costs a few % more than its ceiling says would pass every figure's floor)."""
    problems = [p for t in document["trials"] for p in figure_problems(t)]
    shares = one_way_shares(document)
    if shares and statistics.median(shares) < 1 - MEDIAN_BELOW:
        problems.append(
            f"the one-way figures' median is {statistics.median(shares):.1%} of their "
            f"ceilings (-{MEDIAN_BELOW:.0%}): {sorted(round(s, 3) for s in shares)}"
        )
    return problems


def run(plan: str, directory: Path, dut: str = "netns") -> tuple[dict[str, Any], str]:
    directory.mkdir()
    (directory / "plan.yaml").write_text(plan)
    db = directory / "runs.db"
    prefix = unique_prefix("tun")
    try:
        status, _, err = run_cli(
            "run", str(directory / "plan.yaml"), "--db", str(db), "--lab-name", prefix,
            "--lab-dut", dut, "-q",
        )  # fmt: skip
    finally:
        assert namespaces_of(prefix) == []
    report_status, out, report_err = run_cli("report", "--db", str(db), "--format", "json")
    assert report_status == 0, report_err
    document: dict[str, Any] = json.loads(out)
    document["exit_status"] = status
    for trial in document["trials"]:  # a trial's notes by their number in the run's
        trial["notes"] = [
            document["notes"][note - 1] if isinstance(note, int) else note
            for note in trial["notes"]
        ]
    for trial in document["trials"]:  # shown with -s: what each tunnel carried
        figures = [f"{f['flow']} {f['goodput_bps'] / 1e6:.1f}" for f in trial["flows"]
                   if f["measured"]]  # fmt: skip
        ceiling = trial["ceiling"]["bits_per_second"] / 1e6
        print(f"{trial['key']:44} {trial['status']} {figures} of {ceiling:.1f}")
    return document, err


def notes_of(document: dict[str, Any]) -> list[str]:
    """The run's notes and each trial's, as text."""
    trials = [note for trial in document["trials"] for note in trial["notes"]]
    return [json.dumps(note) for note in (*document["notes"], *trials)]


def measure_until_near(
    plan: str, tmp_path: Path, dut: str = "netns"
) -> tuple[list[str], dict[str, Any]]:
    """Problems of a run; a figure below its bound is measured once more, alone (other
    work on this machine's two cores can starve a trial for a second)."""
    document, err = run(plan, tmp_path / "first", dut)
    assert document["exit_status"] == 0 or any(t["status"] == "ok" for t in document["trials"]), err
    problems = run_problems(document)
    if problems:
        print(f"measured again: {problems}")
        again, _ = run(plan, tmp_path / "again", dut)
        problems = run_problems(again)
    return problems, document


@pytest.mark.parametrize("topology", TOPOLOGIES, ids=str)
def test_every_tunnel_the_plan_accepts_reaches_its_ceiling(
    topology: Topology, tmp_path: Path
) -> None:
    tunnels = [t for t in TUNNELS if (topology, t[1]) not in REFUSED_PLACEMENTS]
    # Each tunnel carries one of the basic shapes, in turn (each shape through every
    # tunnel is test_every_traffic_combination_runs_through_a_tunnel's, on one of them).
    traffic: dict[Shape, list[str]] = {shape: [] for shape in BASIC}
    for index, tunnel in enumerate(tunnels):
        traffic[BASIC[index % len(BASIC)]].append(path_name(tunnel))
    plan = plan_text(topology, tunnels, {shape: on for shape, on in traffic.items() if on})
    problems, document = measure_until_near(plan, tmp_path)
    assert problems == [], "\n".join(problems)
    said = " ".join(notes_of(document))
    assert "inner MTU 1500, outer link MTU 1500" in said  # OpenVPN's default
    assert "inner MTU 1420, outer link MTU 1500; each packet gains 60 bytes" in said
    assert "without data channel offload" in said and "ovpn-dco missing" in said
    assert "WireGuard ran in userspace (wireguard-go)" in said
    tunnels_stored = {t["path"]["name"]: t["path"]["tunnel"] for t in document["trials"]}
    assert {t["kind"] for t in tunnels_stored.values()} == {"openvpn", "wireguard"}
    if topology is not Topology.BRIDGE:  # a tunnel ends at the DUT: its daemon is busy
        assert "openvpn on the DUT (pid" in said and "wireguard-go on the DUT (pid" in said
    # The daemons are the tunnel's work, never "background load".
    background = [n for n in document["notes"] if n["code"] == "background-load"]
    named = " ".join(detail for note in background for detail in note["details"])
    assert "openvpn" not in named and "wireguard-go" not in named


TRAFFIC: list[Shape] = [
    shape
    for shape in itertools.product([Tool.IPERF2, Tool.IPERF3], Proto, Direction)
    if not (shape[0] is Tool.IPERF3 and shape[2] is Direction.DUAL)  # refused: no dual
]


def test_every_traffic_combination_runs_through_a_tunnel(tmp_path: Path) -> None:
    # Through OpenVPN, whose MTU, fragments and daemon differ most from the bare link
    # (WireGuard carries each basic shape on every topology, above).
    tunnels: list[Tunnel] = [(TunnelKind.OPENVPN, TunnelEnds.THROUGH, Proto.UDP)]
    plan = plan_text(Topology.ROUTER, tunnels, {shape: [path_name(t) for t in tunnels]
                                                for shape in TRAFFIC})  # fmt: skip
    problems, _ = measure_until_near(plan, tmp_path)
    assert problems == [], "\n".join(problems)


def test_a_tunnel_to_an_ssh_dut(tmp_path: Path) -> None:
    tunnels: list[Tunnel] = [(TunnelKind.OPENVPN, TunnelEnds.DUT, Proto.UDP)]
    plan = plan_text(Topology.ENDPOINT, tunnels, {BASIC[0]: [path_name(tunnels[0])]})
    problems, _ = measure_until_near(plan, tmp_path, dut="ssh")
    assert problems == [], "\n".join(problems)


def test_rrul_and_latency_probes_run_through_a_tunnel(tmp_path: Path) -> None:
    # The latency kinds take the tunnel's far end as their target too: the probes cross
    # the tunnel, idle and under the load.
    tunnels: list[Tunnel] = [(TunnelKind.WIREGUARD, TunnelEnds.THROUGH, Proto.UDP)]
    paths = "\n".join(
        f"  - {{name: {path_name(t)}, topology: router, tunnel: {tunnel_yaml(t)}}}" for t in tunnels
    )
    plan = (
        f"title: latency through tunnels\nlab: {{link: fe}}\npaths:\n{paths}\n"
        "tests:\n  - {id: rrul, tool: rrul, duration: 4}\n"
        "  - {id: probed, tool: iperf3, duration: 4, probes: irtt}\n"
    )
    document, err = run(plan, tmp_path / "run")
    assert document["exit_status"] == 0, err
    assert len(document["trials"]) == 2
    for trial in document["trials"]:
        assert trial["status"] == "ok", trial["reason"]
        wanted = {"up", "down"} if trial["test"]["tool"] == "rrul" else {"up"}
        assert {f["flow"] for f in trial["flows"] if f["measured"]} == wanted, trial["key"]
        latency = trial["latency"]
        assert 0 < latency["rtt_idle_p50_ms"] < 5, trial["key"]  # the tunnel's own RTT
        assert latency["rtt_loaded_p50_ms"] > latency["rtt_idle_p50_ms"], trial["key"]
        assert trial["path"]["tunnel"]["kind"] in ("openvpn", "wireguard")
