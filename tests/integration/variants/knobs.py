"""What the variant tests read in a lab's namespaces: every MTU, RPS mask and offload."""

from __future__ import annotations

import json
import subprocess

from wirespeed.hosts.netns import NetnsHost
from wirespeed.tune.targets import parse_offloads

OFFLOADS = ("generic-receive-offload", "generic-segmentation-offload", "tcp-segmentation-offload")


def namespaces_of(prefix: str) -> list[str]:
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=True)
    names = [line.split()[0] for line in listed.stdout.splitlines() if line.strip()]
    return sorted(n for n in names if n.startswith(f"wirespeed-{prefix}-"))


def knobs(prefix: str) -> dict[str, str]:
    """'namespace/interface/knob' -> value, exactly as the kernel shows it now."""
    found: dict[str, str] = {}
    for namespace in namespaces_of(prefix):
        host = NetnsHost(namespace)
        links = json.loads(
            subprocess.run(
                ["ip", "-j", "-n", namespace, "link", "show", "type", "veth"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        )
        for link in links:
            name = link["ifname"]
            where = f"{namespace}/{name}"
            found[f"{where}/mtu"] = str(link["mtu"])
            found[f"{where}/rps"] = host.read_file(f"/sys/class/net/{name}/queues/rx-0/rps_cpus")
            offloads = parse_offloads(host.run(["ethtool", "-k", name]).stdout)
            for feature in OFFLOADS:
                found[f"{where}/{feature}"] = offloads[feature][0]
    return found
