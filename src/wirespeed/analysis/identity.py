"""What a run measured and with what, as one plain summary (a bundle's `identity`): each
host's role, board, system, kernel, governor and tool versions (provenance.host_facts),
with the identity and configuration the run read with busybox (facts/identity.py:
SoC, release, NIC drivers and firmware, offloads, qdiscs, RPS/XPS, IRQ affinities, flow
offloading, firewall rules, conntrack entries), and the bench: the lab or real hosts,
each path's topology and link."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from wirespeed.store.records import RunRecord

# The facts of a host that say what it is and how it was set up, in the order shown.
HOST_FIELDS = ("role", "machine", "os", "kernel", "governor", "iperf2", "iperf3")


def run_identity(record: RunRecord) -> dict[str, Any]:
    provenance = record.info.provenance
    hosts: dict[str, Any] = {}
    for name, facts in (provenance.get("hosts") or {}).items():
        if isinstance(facts, dict):
            said = {k: facts[k] for k in HOST_FIELDS if facts.get(k) is not None}
            # What the run read with busybox (facts/identity.py), where it could.
            gathered = facts.get("identity")
            hosts[str(name)] = {**said, **(gathered if isinstance(gathered, dict) else {})}
    paths: dict[str, Any] = {}
    for outcome in record.outcomes:
        path = outcome.trial.path
        link = path.link
        paths.setdefault(
            path.name,
            {
                "topology": path.topology.value,
                "link": None if link is None else link.name,
                "link_bps": None if link is None else link.rate_bps,
            },
        )
    return {"bench": "lab" if provenance.get("labs") else "real", "hosts": hosts, "paths": paths}


def identity_line(identity: Mapping[str, Any]) -> str | None:
    """What facts/identity.py read of a host, in one line of words for a card's "what it
    is": SoC, release, NICs with driver and firmware, flow offloading, qdiscs, firewall
    rules, conntrack entries; None when nothing was read."""
    said = []
    if identity.get("soc"):
        said.append(f"SoC {identity['soc']}")
    release = " ".join(str(identity[k]) for k in ("distribution", "revision") if identity.get(k))
    if release:
        said.append(release)
    nics = identity.get("nics")
    if isinstance(nics, Mapping):
        for name, nic in sorted(nics.items()):
            if not isinstance(nic, Mapping):
                continue
            words = [str(nic[k]) for k in ("driver", "driver_version") if nic.get(k)]
            if nic.get("firmware"):
                words.append(f"firmware {nic['firmware']}")
            offloads = nic.get("offloads")
            if isinstance(offloads, Mapping):
                on = [k for k, v in sorted(offloads.items()) if v == "on"]
                words.append(f"offloads {','.join(on)}" if on else "no offloads")
            said.append(f"{name} {' '.join(words)}".strip())
    if identity.get("flow_offloading"):
        said.append(f"flow offloading {identity['flow_offloading']}")
    qdiscs = identity.get("qdiscs")
    if isinstance(qdiscs, list) and qdiscs:
        kinds = sorted({str(q).split()[1] for q in qdiscs if len(str(q).split()) > 1})
        said.append("qdiscs " + ", ".join(kinds))
    for key, counted in (("firewall_rules", "firewall rules"), ("conntrack", "conntrack entries")):
        if isinstance(identity.get(key), int):
            said.append(f"{identity[key]} {counted}")
    return ", ".join(said) or None
