"""What a run measured and with what, as one plain summary (a bundle's `identity`): each
host's role, board, system, kernel, governor and tool versions (provenance.host_facts),
with the identity and configuration the run read with busybox (facts/identity.py:
SoC, release, NIC drivers and firmware, offloads, qdiscs, RPS/XPS, IRQ affinities, flow
offloading, firewall rules, conntrack entries), and the bench: the lab or real hosts,
each path's topology and link."""

from __future__ import annotations

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
