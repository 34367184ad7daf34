"""Where a card runs: TARGET of `wirespeed card` read into the plan's `lab:`, `hosts:` and
the two paths every card needs: one the traffic crosses (through the DUT, or to it) and
one on the device itself for its benchmarks.

    lab[:TOPOLOGY[:LINK]]   the emulated lab (default nat, gbe), with the lab's options
    PLAN.yaml               a plan's bench: its lab:, hosts: and a path of it
    [user@]device[:port]    a device over SSH; its bench's ends from --client/--server,
                            else this machine talks to the device itself (an endpoint)
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wirespeed.errors import UsageError
from wirespeed.hosts.ssh_target import SshTarget, is_host
from wirespeed.lab.links import parse_link
from wirespeed.model import Topology
from wirespeed.plan.adhoc import lab_words
from wirespeed.plan.problems import one_of

LAB_TOPOLOGY = Topology.NAT  # a home router's path: the card's default
HERE = "here"  # this machine, as a host of the card plan
DUT = "device"  # the device, as a host of the card plan
FORWARDING_TOPOLOGIES = (Topology.BRIDGE, Topology.ROUTER, Topology.NAT)

# The routed path's name in reports, by topology: what the seeds call it.
PATH_NAMES = {
    Topology.NAT: "NAT",
    Topology.ROUTER: "router",
    Topology.BRIDGE: "bridge",
    Topology.ENDPOINT: "WAN",
}


@dataclass(frozen=True)
class LabOptions:
    """The lab's own options, as `wirespeed lab up` takes them."""

    forward_pps: int | None = None
    forward_rate: str | None = None
    queue: str | None = None
    mtu: int | None = None


@dataclass(frozen=True)
class Ends:
    """--client and --server of a device card: `here`, an SSH target or an address."""

    client: str | None = None
    server: str | None = None
    topology: Topology | None = None  # --topology; default nat with both ends
    link: str | None = None  # --link: the path's line rate, for ceilings and searches


@dataclass(frozen=True)
class CardBench:
    """The card plan's bench: JSON values, written into the plan as they are."""

    described: str  # "lab nat, gbe, 15,000 pps, 40ms queue" / "root@192.168.1.1"
    routed: dict[str, Any]  # the traffic's path: {name, topology[, client, server, dut]}
    device: dict[str, Any]  # the benchmarks' path: {name, topology: device[, dut]}
    lab: dict[str, Any] | None = None
    hosts: dict[str, Any] = field(default_factory=dict)
    # Where the DUT's programs run: None for this machine (the lab, a local host), else
    # its SSH target (asked over SSH whether it has a benchmark's program).
    device_ssh: str | None = None

    @property
    def in_lab(self) -> bool:
        return "client" not in self.routed

    @property
    def topology(self) -> Topology:
        return Topology(self.routed["topology"])

    @property
    def forwards(self) -> bool:
        """Whether the traffic crosses the DUT (a forwarding rate is its to measure)."""
        return self.topology in FORWARDING_TOPOLOGIES

    @property
    def builds_tunnels(self) -> bool:
        """The lab builds its own tunnels; between real hosts wirespeed builds them from
        the client to the server across the DUT (`ends: through`), so the traffic must
        cross it (docs/plan-format.md, "Tunnels between real hosts")."""
        return self.in_lab or (self.forwards and "server" in self.routed and self.port_end is None)

    @property
    def port_end(self) -> str | None:
        """An end of the routed path that is a port of this machine (`port:`): no tunnel
        end runs there (docs/plan-format.md)."""
        for name in (self.routed.get("client"), self.routed.get("server")):
            entry = self.hosts.get(str(name)) if name is not None else None
            if isinstance(entry, Mapping) and entry.get("port") is not None:
                return str(name)
        return None

    @property
    def tunnel_ends(self) -> tuple[str, str] | None:
        """The plan hosts a real bench's tunnels run between (client, server); None in
        the lab (its own ends) or where the card builds no tunnel."""
        if self.in_lab or not self.builds_tunnels:
            return None
        return str(self.routed["client"]), str(self.routed["server"])


def card_bench(target: str, lab: LabOptions, ends: Ends, path: str | None = None) -> CardBench:
    """TARGET read; a UsageError (exit 2) saying what it takes otherwise."""
    if target == "lab" or target.startswith("lab:"):
        _no_ends(ends, target)
        return _lab_bench(target, lab)
    _no_lab_options(lab, target)
    if target.endswith((".yaml", ".yml")) or Path(target).is_file():
        _no_ends(ends, target)
        return _plan_bench(target, path)
    return _device_bench(target, ends)


def _no_ends(ends: Ends, target: str) -> None:
    given = [
        flag for flag, value in (("--client", ends.client), ("--server", ends.server)) if value
    ]
    if ends.topology is not None:
        given.append("--topology")
    if ends.link is not None:
        given.append("--link")
    if given:
        raise UsageError(
            f"{' '.join(given)}: a device's bench; {target} has its own",
            hint="card lab:TOPOLOGY:LINK for the lab; a plan's paths for a plan",
        )


def _no_lab_options(lab: LabOptions, target: str) -> None:
    given = [
        flag
        for flag, value in (
            ("--forward-pps", lab.forward_pps),
            ("--forward-rate", lab.forward_rate),
            ("--queue", lab.queue),
            ("--mtu", lab.mtu),
        )
        if value is not None
    ]
    if given:
        raise UsageError(
            f"{' '.join(given)}: the lab's options, and {target} is not the lab",
            hint="wirespeed card lab:nat --forward-pps 15000 --queue 40ms",
        )


def _lab_bench(target: str, options: LabOptions) -> CardBench:
    topology_text, link = lab_words(target, target, "card lab:nat:fe", LAB_TOPOLOGY)
    try:
        topology = Topology(topology_text)
    except ValueError:
        topology = None
    if topology is None or topology is Topology.DEVICE:
        choices = [t.value for t in Topology if t is not Topology.DEVICE]
        raise UsageError(
            f"{target}: no topology {topology_text!r} for a card",
            hint=f"lab:TOPOLOGY with TOPOLOGY {one_of(choices)}",
        )
    try:
        parse_link(link)
    except (ValueError, OverflowError) as error:
        raise UsageError(f"{target}: {error}") from None
    lab: dict[str, Any] = {"link": link}
    limit: dict[str, Any] = {}
    said = [f"lab {topology.value}", link]
    # Each option given: the lab: setting (or the DUT's limit) it becomes, and the
    # words the bench's name says it in.
    for setting, key, value, words in (
        (lab, "mtu", options.mtu, "MTU {}"),
        (lab, "queue", options.queue, "{} queue"),
        (limit, "forward_pps", options.forward_pps, "{:,} pps"),
        (limit, "forward_rate", options.forward_rate, "forwards {}"),
    ):
        if value is not None:
            setting[key] = value
            said.append(words.format(value))
    if limit:
        lab["dut"] = limit
    routed = {"name": PATH_NAMES[topology], "topology": topology.value}
    device = {"name": "DUT", "topology": Topology.DEVICE.value}
    return CardBench(", ".join(said), routed, device, lab=lab)


def _plan_bench(target: str, path_name: str | None) -> CardBench:
    """A plan file's lab:, hosts: and one of its paths: `--path`, else the first that
    crosses a DUT (else the first with traffic); its device path, else one on its DUT."""
    from wirespeed.plan.load import load_plan

    file = Path(target)
    if not file.is_file():
        raise UsageError(
            f"{target}: no such plan file", hint="card lab, card PLAN.yaml or card root@router"
        )
    plan = load_plan(file)  # a bad plan: its problems at their lines, exit 2
    raw = _raw(plan.text)
    paths: list[Mapping[str, Any]] = list(raw.get("paths") or [])
    traffic = [p for p in paths if p.get("topology") != Topology.DEVICE.value]
    if path_name is not None:
        chosen = [p for p in traffic if p.get("name") == path_name]
        if not chosen:
            names = [str(p.get("name")) for p in traffic]
            raise UsageError(
                f"--path {path_name}: {target} has no traffic path of that name",
                hint=f"its paths: {', '.join(names) or 'none'}",
            )
        routed = dict(chosen[0])
    else:
        crossing = [
            p for p in traffic if p.get("topology") in [t.value for t in FORWARDING_TOPOLOGIES]
        ]
        if not (crossing or traffic):
            raise UsageError(
                f"{target}: no path with traffic for the card to measure",
                hint="add a path of topology nat, router, bridge or endpoint",
            )
        routed = dict((crossing or traffic)[0])
    routed.pop("tunnel", None)  # the card's VPN part builds its own
    hosts = dict(raw.get("hosts") or {})
    devices = [p for p in paths if p.get("topology") == Topology.DEVICE.value]
    dut_host = routed.get("dut") if isinstance(routed.get("dut"), str) else None
    if Topology(routed["topology"]) is Topology.ENDPOINT:
        dut_host = dut_host or routed.get("server")
    if devices:
        device = dict(devices[0])
        dut_host = device.get("dut") or dut_host
    elif "client" in routed:
        device = {"name": "DUT", "topology": Topology.DEVICE.value}
        if dut_host is not None:
            device["dut"] = dut_host
    else:
        device = {"name": "DUT", "topology": Topology.DEVICE.value}
    ssh = None
    if isinstance(dut_host, str) and isinstance(hosts.get(dut_host), Mapping):
        ssh = hosts[dut_host].get("ssh")
    lab = dict(raw["lab"]) if isinstance(raw.get("lab"), Mapping) else None
    return CardBench(
        f"{routed['name']} of {file.name}",
        routed,
        device,
        lab=lab,
        hosts=hosts,
        device_ssh=str(ssh) if ssh else None,
    )


def _raw(text: str) -> dict[str, Any]:
    """The plan's YAML as JSON values (it validated: a mapping)."""
    from ruamel.yaml import YAML

    loaded = YAML(typ="safe").load(text)
    # Through JSON: plain dicts and lists, and every value one the card plan can write.
    return dict(json.loads(json.dumps(loaded, default=str)))


def _host_entry(text: str, flag: str) -> dict[str, Any]:
    """--client or --server: `here` (this machine), an address, or [user@]host[:port]
    reached over SSH."""
    if text in (HERE, "local", "localhost"):
        return {}
    if is_host(text):
        if "@" not in text:
            return {"address": text}
        return {"ssh": text}
    try:
        SshTarget.parse(text)
    except ValueError as error:
        raise UsageError(
            f"{flag} {text}: {error}", hint=f"{flag} here, {flag} ADDRESS or {flag} user@host"
        ) from None
    return {"ssh": text}


def _device_bench(target: str, ends: Ends) -> CardBench:
    try:
        parsed = SshTarget.parse(target) if not is_host(target) else None
    except ValueError as error:
        raise UsageError(
            f"{target}: {error}",
            hint="card TARGET: lab, lab:nat:fe, a plan file, or user@device (root@192.168.1.1)",
        ) from None
    ssh = target if parsed is not None or "@" in target else f"root@{target}"
    hosts: dict[str, Any] = {DUT: {"ssh": ssh}}
    if ends.client is None and ends.server is None:
        if ends.topology not in (None, Topology.ENDPOINT):
            raise UsageError(
                f"--topology {ends.topology.value}: traffic through {target} needs its two "
                "ends: --client and --server",
                hint="--client here --server user@host (a machine behind the device)",
            )
        hosts[HERE] = {}
        routed = {
            "name": PATH_NAMES[Topology.ENDPOINT],
            "topology": Topology.ENDPOINT.value,
            "client": HERE,
            "server": DUT,
        }
    else:
        if ends.client is None or ends.server is None:
            missing = "--client" if ends.client is None else "--server"
            raise UsageError(
                f"{missing}: a bench through the device needs both ends",
                hint="--client here --server user@host",
            )
        topology = ends.topology or Topology.NAT
        if topology not in FORWARDING_TOPOLOGIES:
            raise UsageError(
                f"--topology {topology.value}: with --client and --server the traffic "
                "crosses the device",
                hint=f"--topology {one_of([t.value for t in FORWARDING_TOPOLOGIES])}",
            )
        hosts["client"] = _host_entry(ends.client, "--client")
        hosts["server"] = _host_entry(ends.server, "--server")
        routed = {
            "name": PATH_NAMES[topology],
            "topology": topology.value,
            "client": "client",
            "server": "server",
            "dut": DUT,
        }
    if ends.link is not None:
        try:
            parse_link(ends.link)
        except (ValueError, OverflowError) as error:
            raise UsageError(f"--link {ends.link}: {error}") from None
        routed["link"] = ends.link
    device = {"name": "DUT", "topology": Topology.DEVICE.value, "dut": DUT}
    return CardBench(ssh, routed, device, hosts=hosts, device_ssh=ssh)
