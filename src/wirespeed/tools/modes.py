"""Which directions each tool can measure through which topology."""

from __future__ import annotations

from wirespeed.model import Direction, Tool, Topology


def check_direction(tool: Tool, direction: Direction, topology: Topology | None) -> str | None:
    """None if `tool` can measure `direction` through `topology`, else the problem and
    what to use instead, in one line."""
    if direction is not Direction.DUAL:
        return None
    if tool is Tool.IPERF3:
        return (
            "iperf3 has no dual mode (-d): use direction bidir (--bidir), which runs both "
            "directions at once over the client's own connections"
        )
    if topology is Topology.NAT:
        return (
            "iperf2 dual (-d) cannot work through NAT: the server opens a connection back "
            "to the client, which NAT drops, and iperf2 still exits 0 with one direction "
            "missing; use bidir (--full-duplex), down (-R), or iperf3 bidir"
        )
    return None
