"""The card's plan: its bench (card/target.py) and a test per figure, as the YAML text of an
ordinary plan, read by the same loader as a plan file. The text is what the run stores,
so `report`, `compare` and `run --resume` see a plan like any other; its `x-card:` key
(plans ignore `x-` keys) says it is a card, which parts it has and which it skipped.

Values are written as JSON, which is YAML: nothing from a target or an option is ever read
as YAML syntax.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from wirespeed.card.parts import (
    CARD_KEY,
    COMPUTE,
    FORWARDING,
    LATENCY,
    OPENVPN_PATH,
    THROUGHPUT,
    VPN,
    WIREGUARD_PATH,
)
from wirespeed.card.target import CardBench
from wirespeed.lab.links import parse_link
from wirespeed.model import Topology
from wirespeed.plan.load import parse_plan
from wirespeed.plan.plan import Plan

CARD_VERSION = 1
SOURCE = "<card>"

CIPHERS = ("aes-128-gcm", "aes-256-gcm", "aes-128-cbc", "aes-256-cbc", "chacha20-poly1305")
FRAME_SIZES = (64, 512, 1518)  # the smallest, a middle one and the largest (RFC 2544's)
UDP_RATE = 1_000_000_000  # on a path without a known link: as the seeds' -b 1000M
LOOK_DICTIONARY = 16  # 7-zip's smallest (-md16), under --duration


@dataclass(frozen=True)
class Profile:
    """How long and how often: `--quick` (the default) or `--full` (the seeds')."""

    name: str
    traffic_s: float  # each throughput and VPN test
    rrul_s: float
    forwarding_final_s: float | None  # None: the search's default (10 s lab, 60 s device)
    width: str  # how close a search's bounds end
    repetitions: int
    openssl_seconds: int | None  # None: openssl's 3 s
    blocks: tuple[str, ...]
    sevenzip_passes: int | None  # None: 7-zip's own
    # log2 of 7-zip's dictionary; None: its own. A small one is quick (and its MIPS are
    # comparable only with cards of the same profile).
    sevenzip_dictionary: int | None = None


QUICK = Profile("quick", 5, 10, 2, "2%", 1, 1, ("8K",), 1, 20)
FULL = Profile("full", 30, 30, None, "1%", 3, None, ("1K", "8K"), None)
PROFILES = {p.name: p for p in (QUICK, FULL)}


@dataclass(frozen=True)
class Tuned:
    """`--tuned`: the network parts again in a variant with `tune suggest`'s changes.

    changes: what it proposes, in `tune suggest`'s words, where it could be asked before
    the run (a device over SSH; a lab's DUT is built by the run, and its suggestion is
    read from it when the variant starts); nothing: why there is no tuned variant
    (`tune suggest` has nothing to change), "" when there is one."""

    changes: tuple[str, ...] = ()
    nothing: str = ""


STOCK, TUNED = "stock", "tuned"  # the card's two variants under --tuned


@dataclass(frozen=True)
class CardOptions:
    profile: Profile = QUICK
    duration: float | None = None  # every test's (and a search's final trials'), for a look
    frame_sizes: tuple[int, ...] = FRAME_SIZES
    repetitions: int | None = None
    # Parts or tests left out, with the line that says why: {"vpn": "...", "7z": "..."}.
    skipped: Mapping[str, str] = field(default_factory=dict)
    facts: tuple[str, ...] = ()  # what the device is (card/facts_lines.py)
    tuned: Tuned | None = None  # --tuned


def forwarding_directions(topology: Topology) -> tuple[str, ...]:
    """Through NAT, in and out (as seed 004); else each way."""
    return ("in", "out") if topology is Topology.NAT else ("up", "down")


def card_plan_text(bench: CardBench, options: CardOptions) -> str:
    profile = options.profile
    traffic_s = options.duration or profile.traffic_s
    rrul_s = options.duration or profile.rrul_s
    skipped = options.skipped
    lines = [
        f"# wirespeed card: {bench.described} ({profile.name})",
        "# One run of every part of the device card: throughput, forwarding rate, latency",
        "# under load, VPN tunnels, crypto and compute (docs/card.md).",
        f"title: {_json(f'Device card: {bench.described}')}",
    ]
    if bench.lab is not None:
        lines.append(f"lab: {_json(bench.lab)}")
    if bench.hosts:
        lines.append("hosts:")
        lines += [f"  {_json(name)}: {_json(entry)}" for name, entry in bench.hosts.items()]
    routed = str(bench.routed["name"])
    device = str(bench.device["name"])
    paths: list[dict[str, Any]] = [bench.routed]
    tunnels = [
        (WIREGUARD_PATH, "wireguard"),
        (OPENVPN_PATH, "openvpn"),
    ]
    vpn_paths = [name for name, _ in tunnels if name not in skipped and VPN.key not in skipped]
    if bench.builds_tunnels:
        for name, kind in tunnels:
            if name not in vpn_paths:
                continue
            if bench.in_lab and bench.topology in (Topology.NAT, Topology.ROUTER):
                # Ending at the routed path's own DUT, with its limits: one device for
                # the whole card, whose budget the tunnels' packets count against.
                tunnel = {"kind": kind, "ends": "dut"}
                paths.append({**bench.routed, "name": name, "tunnel": tunnel})
            elif bench.in_lab:
                # A bridge routes nothing and an endpoint's DUT is the server: the
                # tunnels end at an endpoint lab's DUT, which the card says.
                tunnel = {"kind": kind, "ends": "dut"}
                paths.append({"name": name, "topology": "endpoint", "tunnel": tunnel})
            else:
                # Between the routed path's two ends, the DUT forwarding the encrypted
                # packets: what a VPN across the device costs, not the device's own VPN.
                tunnel = {"kind": kind, "ends": "through"}
                paths.append({**bench.routed, "name": name, "tunnel": tunnel})
    else:
        vpn_paths = []
    compute = [t for t in COMPUTE.tests if t not in skipped and COMPUTE.key not in skipped]
    if compute:
        paths.append(bench.device)
    lines.append("paths:")
    lines += [f"  - {_json(path)}" for path in paths]
    lines.append(f"repetitions: {options.repetitions or profile.repetitions}")
    lines.append("tests:")
    tests: list[dict[str, Any]] = []
    on_routed = {"paths": [routed], "duration": traffic_s}
    if THROUGHPUT.key not in skipped:
        tests += [
            {"id": "tcp-up", "name": "TCP up", **on_routed},
            {"id": "tcp-down", "name": "TCP down", "direction": "down", **on_routed},
            {"id": "tcp-both", "name": "TCP both ways", "direction": "bidir", **on_routed},
            {
                "id": "udp",
                "name": "UDP at the line rate",
                "protocol": "udp",
                "rate": _line_rate(bench),
                **on_routed,
            },
        ]
    if FORWARDING.key not in skipped:
        search: dict[str, Any] = {
            "frame_sizes": list(options.frame_sizes),
            "directions": list(forwarding_directions(bench.topology)),
            "width": profile.width,
        }
        final = options.duration or profile.forwarding_final_s
        if final is not None:
            search["final_duration"] = final
            search["initial_duration"] = min(1, final)
        tests.append(
            {
                "id": "fwd",
                "name": "forwarding rate",
                "tool": "forwarding",
                "paths": [routed],
                "options": search,
            }
        )
    if LATENCY.key not in skipped:
        # cubic, as RRUL is usually run (flent on a stock Linux): it fills the queues a
        # grade is about, where bbr (the lab's default here) keeps them part empty, so a
        # card's grade would depend on the measuring machine's default, not the device.
        tests.append(
            {
                "id": "rrul",
                "name": "RRUL, 4 streams each way",
                "tool": "rrul",
                "paths": [routed],
                "duration": rrul_s,
                "congestion": "cubic",
            }
        )
    if vpn_paths:
        tests.append(
            {
                "id": "vpn",
                "name": "TCP through the tunnel",
                "paths": vpn_paths,
                "duration": traffic_s,
            }
        )
    if "crypto" in compute:
        crypto: dict[str, Any] = {
            "ciphers": list(CIPHERS),
            "blocks": list(profile.blocks),
            "evp": "with",
        }
        if profile.openssl_seconds is not None:
            crypto["seconds"] = profile.openssl_seconds
        tests.append(
            {
                "id": "crypto",
                "name": "openssl speed",
                "tool": "openssl",
                "paths": [device],
                "options": crypto,
            }
        )
    if "7z" in compute:
        sevenzip: dict[str, Any] = {"threads": [1, "all"]}
        passes, dictionary = profile.sevenzip_passes, profile.sevenzip_dictionary
        if options.duration is not None:
            # A look: 7-zip times itself (10 s of CPU a run, whatever its dictionary),
            # so its shortest is one run on every thread, one pass, its smallest
            # dictionary.
            sevenzip["threads"] = ["all"]
            passes, dictionary = 1, LOOK_DICTIONARY
        if passes is not None:
            sevenzip["passes"] = passes
        if dictionary is not None:
            sevenzip["dictionary"] = dictionary
        tests.append(
            {
                "id": "7z",
                "name": "7-zip benchmark",
                "tool": "7zip",
                "paths": [device],
                "options": sevenzip,
            }
        )
    lines += [f"  - {_json(test)}" for test in tests]
    tuned = options.tuned
    # Tuning the NICs changes no cipher's or compressor's speed: compute runs once.
    network = [str(t["id"]) for t in tests if t["id"] not in COMPUTE.tests]
    if tuned is not None and not network:
        tuned = Tuned(nothing="--tuned: no network part left to run again")
    if tuned is not None and not tuned.nothing:
        lines.append("variants:")
        lines.append(f"  - {_json({'name': STOCK})}")
        lines.append(f"  - {_json({'name': TUNED, 'tune': 'suggest', 'tests': network})}")
    marker = {
        "version": CARD_VERSION,
        "target": bench.described,
        "profile": profile.name,
        "routed": routed,
        "device": device,
        "skipped": dict(skipped),
        "facts": list(options.facts),
    }
    if tuned is not None:
        marker["tuned"] = {"changes": list(tuned.changes), "nothing": tuned.nothing}
    lines.append(f"{CARD_KEY}: {_json(marker)}")
    return "\n".join(lines) + "\n"


def card_plan(bench: CardBench, options: CardOptions) -> Plan:
    return parse_plan(card_plan_text(bench, options), SOURCE)


def card_marker(plan_text: str | None) -> dict[str, Any] | None:
    """The `x-card:` of a stored plan's text; None for a run that is not a card."""
    if not plan_text or f"\n{CARD_KEY}:" not in f"\n{plan_text}":
        return None
    for line in plan_text.splitlines():
        if line.startswith(f"{CARD_KEY}:"):
            try:
                value = json.loads(line.partition(":")[2])
            except ValueError:
                return None
            return value if isinstance(value, dict) else None
    return None


def _line_rate(bench: CardBench) -> int:
    link = bench.lab.get("link") if bench.lab is not None else bench.routed.get("link")
    if isinstance(link, str):
        try:
            rate = parse_link(link).rate_bps
        except (ValueError, OverflowError):
            return UDP_RATE
        if rate:
            return int(rate)
    return UDP_RATE


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def test_ids(tests: Sequence[Mapping[str, Any]]) -> list[str]:
    return [str(t["id"]) for t in tests]
