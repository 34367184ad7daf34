"""Where a run's paths run: which of its labs, which plan hosts, the ends of a tunnel.

Pure functions of the plan and a path, shared by the preflight checks (preflight.py),
the hosts and labs a run sets up (run_hosts.py) and the runner.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeAlias

from wirespeed.model import ForwardingLimit, PathSpec, Topology, Trial

if TYPE_CHECKING:
    from wirespeed.plan import Plan


def lab_topology(path: PathSpec) -> Topology:
    """The lab a path runs in: a device path's benchmarks run on the endpoint lab's DUT."""
    return Topology.ENDPOINT if path.topology is Topology.DEVICE else path.topology


LabKey: TypeAlias = tuple[Topology, ForwardingLimit | None]


def lab_key(path: PathSpec) -> LabKey:
    """Which of a run's labs a path runs in: one per topology and DUT limit, so that a
    15 kpps DUT and a 60 kpps one of the same topology are two labs."""
    return lab_topology(path), path.limit


def lab_name(prefix: str | None, key: LabKey) -> str | None:
    """`nat`, `nat-15kpps`, `PREFIX-nat-15kpps`; None: the topology's own (Lab.up's
    default, which gives way to nat-2 ... while a live run holds it)."""
    topology, limit = key
    name = topology.value if limit is None else f"{topology.value}-{limit.label}"
    if prefix:
        return f"{prefix}-{name}"
    return None if limit is None else name


def is_lab_path(plan: Plan, path: PathSpec) -> bool:
    """A path that names no host of the plan runs in the emulated lab."""
    return plan.lab is not None and path.client not in plan.hosts


def tunnel_ends(path: PathSpec) -> tuple[str, str]:
    """The plan hosts of a real path's tunnel: (the client, the DUT or the server)."""
    from wirespeed.model import TunnelEnds

    assert path.tunnel is not None
    if path.tunnel.ends is TunnelEnds.DUT:
        return path.client, path.dut or path.server
    return path.client, path.server


def named_generator(trial: Trial) -> str | None:
    """The generator a forwarding search's plan names (None: not a search)."""
    if trial.test.search is None:
        return None
    value = trial.test.search.as_dict().get("generator")
    return value if isinstance(value, str) else None


def search_senders(trial: Trial) -> list[str]:
    """The plan's hosts that send a search's traffic up: its client and `senders:`."""
    assert trial.test.search is not None and trial.path.client is not None
    more = trial.test.search.as_dict().get("senders")
    return (
        [trial.path.client, *(str(n) for n in more)]
        if isinstance(more, list)
        else [trial.path.client]
    )


def more_senders(trial: Trial) -> list[str]:
    """A search's `senders:` beside its client (none for any other test)."""
    more = trial.test.search.as_dict().get("senders") if trial.test.search is not None else None
    return [str(name) for name in more] if isinstance(more, list) else []


def cpu_device(plan: Plan, path: PathSpec) -> str | None:
    """The plan host whose CPUs a path's variants set: its DUT (on an endpoint path the
    server); None on lab paths."""
    if is_lab_path(plan, path):
        return None
    return path.dut or (path.server if path.topology is Topology.ENDPOINT else None)
