"""Names of a lab's namespaces: `wirespeed-<lab>-<node>`, e.g. wirespeed-bridge-dut.

The prefix marks a namespace as the project's: status and teardown look only at
namespaces that carry it. The node (client, dut, server, switch) is the last
dash-separated part, so a lab name may itself contain dashes.
"""

from __future__ import annotations

import re

from wirespeed.errors import UsageError
from wirespeed.lab.topology import ALL_NODES, Node

PREFIX = "wirespeed-"
_LAB_NAME = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$")


def check_lab_name(name: str) -> str:
    if not _LAB_NAME.fullmatch(name):
        raise UsageError(
            f"bad lab name {name!r}",
            hint="use 1-40 lowercase letters, digits and dashes, e.g. bridge or r4s-test",
        )
    return name


def namespace_name(lab: str, node: Node) -> str:
    return f"{PREFIX}{lab}-{node.value}"


_NODES_BY_NAME: dict[str, Node] = {node.value: node for node in ALL_NODES}


def parse_namespace(namespace: str) -> tuple[str, Node] | None:
    """('bridge', Role.DUT) for wirespeed-bridge-dut, ('endpoint', Infra.SWITCH) for
    wirespeed-endpoint-switch; None for anyone else's namespace."""
    if not namespace.startswith(PREFIX):
        return None
    lab, _, node = namespace[len(PREFIX) :].rpartition("-")
    if not lab or node not in _NODES_BY_NAME:
        return None
    return lab, _NODES_BY_NAME[node]
