"""Two client namespaces into one DUT namespace that forwards at most `limit` packets/s,
built with plain ip and nft (not wirespeed's lab code): the truth that two senders' loads
add up. Shared by the fast generators' test and benchmarks/generator_truth.py."""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator

from wirespeed.hosts.netns import NetnsHost

SERVER_ADDRESS_OF = "10.{net}.3.2"


def _ip(*argv: str) -> None:
    subprocess.run(["ip", *argv], check=True, capture_output=True, text=True)


@contextlib.contextmanager
def two_clients_one_dut(
    limit: int, *, net: int = 70, tag: str = "fg"
) -> Iterator[tuple[NetnsHost, NetnsHost, NetnsHost, str]]:
    """c1 10.NET.1.2 and c2 10.NET.2.2, each on its own DUT port, the server 10.NET.3.2 on
    the third; the DUT forwards `limit` packets/s in all (nftables, 25 ms of burst).
    Yields the three hosts and the server's address; removes every namespace after."""
    base = f"{tag}{os.getpid()}"
    names = {role: f"{base}-{role}" for role in ("c1", "c2", "dut", "srv")}
    try:
        for name in names.values():
            _ip("netns", "add", name)
            _ip("-n", name, "link", "set", "lo", "up")
        for index, role in enumerate(("c1", "c2", "srv"), start=1):
            inside, outside = f"{base}a{index}", f"{base}b{index}"
            _ip("link", "add", inside, "netns", names[role], "type", "veth", "peer",
                "name", outside, "netns", names["dut"])  # fmt: skip
            for ns, dev in ((names[role], inside), (names["dut"], outside)):
                _ip("-n", ns, "link", "set", dev, "up")
                # Without GRO the DUT forwards (and its limit counts) each packet as sent.
                subprocess.run(
                    ["ip", "netns", "exec", ns, "ethtool", "-K", dev, "gro", "off"],
                    check=False,
                    capture_output=True,
                )
            _ip("-n", names[role], "addr", "add", f"10.{net}.{index}.2/24", "dev", inside)
            _ip("-n", names["dut"], "addr", "add", f"10.{net}.{index}.1/24", "dev", outside)
            _ip("-n", names[role], "route", "add", "default", "via", f"10.{net}.{index}.1")
        subprocess.run(
            ["ip", "netns", "exec", names["dut"], "sysctl", "-qw", "net.ipv4.ip_forward=1"],
            check=True,
        )
        rules = (
            f"table ip {tag}limit {{\n chain forward {{\n"
            "  type filter hook forward priority 0; policy accept;\n"
            f"  limit rate over {limit}/second burst {limit // 40} packets drop\n }}\n}}\n"
        )
        subprocess.run(
            ["ip", "netns", "exec", names["dut"], "nft", "-f", "-"],
            input=rules,
            text=True,
            check=True,
        )
        server = SERVER_ADDRESS_OF.format(net=net)
        yield NetnsHost(names["c1"]), NetnsHost(names["c2"]), NetnsHost(names["srv"]), server
    finally:
        for name in names.values():
            subprocess.run(["ip", "netns", "del", name], check=False, capture_output=True)
