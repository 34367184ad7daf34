"""A veth pair with two queues each inside a lab namespace, and the knobs to tune on it.

Two queues, because the kernel has no xps_cpus for a single-queue device (reading it
fails with ENOENT), and the lab's own links have one.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from wirespeed.hosts.netns import NetnsHost
from wirespeed.lab.lab import Lab
from wirespeed.tune import Change
from wirespeed.tune.model import mask_of
from wirespeed.tune.targets import parse_offloads

IFACE = "tune0"
PEER = "tune1"
MakeLab = Callable[..., Lab]  # the make_lab fixture of tests/integration/conftest.py
SCRIPT = Path(__file__).with_name("tune_apply_and_sleep.py")


def add_veth(namespace: str) -> None:
    subprocess.run(
        [
            "ip", "netns", "exec", namespace,
            "ip", "link", "add", IFACE, "numtxqueues", "2", "numrxqueues", "2",
            "type", "veth", "peer", "name", PEER, "numtxqueues", "2", "numrxqueues", "2",
        ],
        check=True,
    )  # fmt: skip
    subprocess.run(["ip", "netns", "exec", namespace, "ip", "link", "set", IFACE, "up"], check=True)


def offloads(host: NetnsHost) -> dict[str, tuple[str, bool]]:
    return parse_offloads(host.run(["ethtool", "-k", IFACE]).stdout)


def knobs(host: NetnsHost) -> dict[str, str]:
    """Everything the tests change, exactly as the kernel shows it."""
    base = f"/sys/class/net/{IFACE}"
    found = {
        path: host.read_file(path)
        for path in (
            f"{base}/queues/rx-0/rps_cpus",
            f"{base}/queues/rx-1/rps_cpus",
            f"{base}/queues/tx-0/xps_cpus",
            f"{base}/mtu",
        )
    }
    found["ethtool -k"] = host.run(["ethtool", "-k", IFACE]).stdout
    return found


def lab_changes(host: NetnsHost) -> list[Change]:
    """RPS and XPS onto the last CPU, MTU 9000, GRO flipped and TSO off (which takes
    its tx-tcp*-segmentation children with it)."""
    last = mask_of(((os.cpu_count() or 1) - 1,))
    gro = offloads(host)["generic-receive-offload"][0]
    base = f"/sys/class/net/{IFACE}"
    return [
        Change(f"{base}/queues/rx-0/rps_cpus", None, last, "rps"),
        Change(f"{base}/queues/rx-1/rps_cpus", None, last, "rps"),
        Change(f"{base}/queues/tx-0/xps_cpus", None, last, "xps"),
        Change(f"{base}/mtu", None, "9000", "jumbo"),
        Change(f"ethtool:{IFACE}:gro", None, "off" if gro == "on" else "on", "gro flipped"),
        Change(f"ethtool:{IFACE}:tso", None, "off", "tso off"),
    ]


def start_applier(db: Path, namespace: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(SCRIPT), str(db), namespace],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
