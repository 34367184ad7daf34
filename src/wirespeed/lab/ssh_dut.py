"""A real SSH device in the lab: dropbear with busybox's shell inside the DUT namespace.

    --lab-dut ssh    (wirespeed run / lab up)

The DUT namespace gets a management port `mgmt` (198.18.254.1/30) on a veth to a
namespace of its own, `wirespeed-<lab>-mgmt` (198.18.254.2), where wirespeed opens its
SSH connections, as a laptop reaches a router over its LAN. The management link is not
shaped and carries no test traffic.

dropbear runs in a private mount namespace in which the device looks like OpenWrt:
/usr/bin (and so /bin) holds only busybox's applets plus iperf, iperf3 and the
benchmarks' tools where this machine has them (openssl, 7zz: OpenWrt's openssl-util and
p7zip packages), root's shell
is busybox sh, and root's home (with authorized_keys) is the lab's own directory. No bash
on its PATH, no Python. Nothing of this machine's is changed: the bind mounts exist only
in dropbear's mount namespace and end with it.

Keys are made per lab: dropbear's host key (dropbearkey) and a client key; wirespeed
checks the host key strictly against a known_hosts file the lab writes, so the lab tests
the same path as a real device. Files live in /run/wirespeed/devices/<lab>/; lab
teardown kills dropbear with everything else in the namespace and removes them.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from wirespeed.errors import LabError, MissingToolError
from wirespeed.hosts.netns import call_in_namespace
from wirespeed.lab import system

if TYPE_CHECKING:
    from wirespeed.hosts.ssh import SshHost
    from wirespeed.hosts.ssh_connection import SshSettings

DEVICES_DIR = "/run/wirespeed/devices"
DUT_ADDRESS = "198.18.254.1"
MGMT_ADDRESS = "198.18.254.2"
MGMT_PREFIX = 30
MGMT_PORT = "mgmt"  # the DUT's management interface
SSH_PORT = 22
USER = "root"
_START_TIMEOUT = 5.0
# What a device needs beside busybox: the tools wirespeed runs there (a benchmark's
# only where this machine has it; a plan that needs a missing one is told so).
_EXTRA_PROGRAMS = ("iperf", "iperf3")
_BENCHMARK_PROGRAMS = ("openssl", "7zz")

# dropbear's own options: no passwords, no forwarding, host key and pid file of the lab.
_SERVER_SCRIPT = """\
set -e
mount --bind /usr/bin "$1/usr-bin"
mount --bind "$1/passwd" /etc/passwd
mount --bind "$1/shells" /etc/shells
mount --bind "$1/empty" /usr/local
mount --bind "$1/bin" /usr/bin
if [ -f "$1/boot_id" ]; then mount --bind "$1/boot_id" /proc/sys/kernel/random/boot_id; fi
exec /usr/sbin/dropbear -s -g -j -k -p "$2:22" -r "$1/host_key" -P "$1/dropbear.pid"
"""


@dataclass(frozen=True)
class SshDevice:
    """Where a lab's SSH DUT is and how to log in to it."""

    lab: str
    directory: Path
    mgmt_namespace: str
    address: str = DUT_ADDRESS
    port: int = SSH_PORT
    user: str = USER

    @property
    def client_key(self) -> Path:
        return self.directory / "client_key"

    @property
    def known_hosts(self) -> Path:
        return self.directory / "known_hosts"

    @property
    def target_text(self) -> str:
        return f"{self.user}@{self.address}:{self.port}"


def device_directory(lab: str) -> Path:
    return Path(DEVICES_DIR) / lab


def device_for(lab: str, mgmt_namespace: str) -> SshDevice:
    return SshDevice(lab=lab, directory=device_directory(lab), mgmt_namespace=mgmt_namespace)


def require_tools() -> None:
    for program in ("dropbear", "dropbearkey", "busybox", "unshare"):
        if shutil.which(program) is None and not os.path.exists(f"/usr/sbin/{program}"):
            raise MissingToolError(program, "this machine (for --lab-dut ssh)")


def management_commands(dut_namespace: str, mgmt_namespace: str) -> list[list[str]]:
    """The management link: a namespace for wirespeed's side and a veth into the DUT."""
    return [
        ["ip", "netns", "add", mgmt_namespace],
        ["ip", "-n", mgmt_namespace, "link", "set", "lo", "up"],
        [
            "ip",
            "-n",
            mgmt_namespace,
            "link",
            "add",
            "eth0",
            "type",
            "veth",
            "peer",
            "name",
            MGMT_PORT,
            "netns",
            dut_namespace,
        ],
        ["ip", "-n", mgmt_namespace, "addr", "add", f"{MGMT_ADDRESS}/{MGMT_PREFIX}", "dev", "eth0"],
        [
            "ip",
            "-n",
            dut_namespace,
            "addr",
            "add",
            f"{DUT_ADDRESS}/{MGMT_PREFIX}",
            "dev",
            MGMT_PORT,
        ],
        ["ip", "-n", mgmt_namespace, "link", "set", "eth0", "up"],
        ["ip", "-n", dut_namespace, "link", "set", MGMT_PORT, "up"],
    ]


def prepare_files(device: SshDevice) -> None:
    """The device's root of trust and its OpenWrt-like /usr/bin."""
    directory = device.directory
    shutil.rmtree(directory, ignore_errors=True)
    for sub in ("bin", "usr-bin", "empty", "home/.ssh"):
        (directory / sub).mkdir(parents=True, mode=0o755)
    os.chmod(directory / "home" / ".ssh", 0o700)
    busybox = shutil.which("busybox")
    assert busybox is not None
    real_bin = directory / "usr-bin"  # where the real /usr/bin stays reachable
    applets = subprocess.run(
        [busybox, "--list"], capture_output=True, text=True, check=True, timeout=10
    ).stdout.split()
    for applet in applets:
        if "/" not in applet:
            (directory / "bin" / applet).symlink_to(real_bin / os.path.basename(busybox))
    for program in (*_EXTRA_PROGRAMS, *_BENCHMARK_PROGRAMS):
        found = shutil.which(program)
        # By its name in the real /usr/bin, which stays reachable as usr-bin (a link
        # there into /usr/lib, as 7zz's, still resolves).
        if found is not None and os.path.dirname(found) == "/usr/bin":
            (directory / "bin" / program).unlink(missing_ok=True)
            (directory / "bin" / program).symlink_to(real_bin / os.path.basename(found))
    (directory / "passwd").write_text(f"{USER}:x:0:0:{USER}:{directory / 'home'}:/bin/sh\n")
    (directory / "shells").write_text("/bin/sh\n/bin/ash\n")
    system.run(["dropbearkey", "-t", "ed25519", "-f", str(directory / "host_key")])
    host_public = _public_line(system.run(["dropbearkey", "-y", "-f", str(directory / "host_key")]))
    device.known_hosts.write_text(f"{device.address} {host_public}\n")
    client_public = _client_key(device.client_key)
    authorized = directory / "home" / ".ssh" / "authorized_keys"
    authorized.write_text(client_public + "\n")
    os.chmod(authorized, 0o600)


def _public_line(dropbearkey_output: str) -> str:
    for line in dropbearkey_output.splitlines():
        if line.startswith("ssh-"):
            kind, blob = line.split()[:2]
            return f"{kind} {blob}"
    raise LabError(f"dropbearkey printed no public key: {dropbearkey_output!r}")


def _client_key(path: Path) -> str:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    key = Ed25519PrivateKey.generate()
    private = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.OpenSSH,
        serialization.NoEncryption(),
    )
    path.write_bytes(private)
    os.chmod(path, 0o600)
    public = key.public_key().public_bytes(
        serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH
    )
    return public.decode() + " wirespeed-lab"


def start_server(device: SshDevice, dut_namespace: str) -> None:
    """Start dropbear in the DUT namespace and wait until it accepts connections."""
    system.run(
        [
            "ip",
            "netns",
            "exec",
            dut_namespace,
            "unshare",
            "--mount",
            "--propagation",
            "private",
            "/bin/sh",
            "-c",
            _SERVER_SCRIPT,
            "sh",
            str(device.directory),
            device.address,
        ]
    )
    deadline = time.monotonic() + _START_TIMEOUT
    while time.monotonic() < deadline:
        try:
            open_socket(device.mgmt_namespace, device.address, device.port, 1.0).close()
            return
        except OSError:
            time.sleep(0.02)
    raise LabError(f"dropbear in {dut_namespace} did not accept connections within 5 s")


def restart_server(device: SshDevice, dut_namespace: str) -> None:
    """dropbear started again after every process of the DUT namespace was killed, as a
    device that restarted: with a boot id of its own (a namespace cannot restart; the
    boot id the device shows, /proc/sys/kernel/random/boot_id, is a new one from now)."""
    (device.directory / "boot_id").write_text(f"{uuid.uuid4()}\n")
    start_server(device, dut_namespace)


def open_socket(namespace: str, host: str, port: int, timeout: float) -> socket.socket:
    """A TCP connection made from inside a namespace (it stays there for its life)."""
    return call_in_namespace(namespace, lambda: socket.create_connection((host, port), timeout))


def remove_files(lab: str) -> None:
    shutil.rmtree(device_directory(lab), ignore_errors=True)


def settings_for(device: SshDevice) -> SshSettings:
    """Log in with the lab's key only, trusting only the lab's host key, through the
    management namespace; ~/.ssh of this machine plays no part."""
    from wirespeed.hosts.ssh_connection import SshSettings

    return SshSettings(
        config_path=device.directory / "no-ssh-config",
        known_hosts=(device.known_hosts,),
        identities=(device.client_key,),
        use_agent=False,
        socket_factory=lambda host, port, timeout: open_socket(
            device.mgmt_namespace, host, port, timeout
        ),
    )


def host_for(device: SshDevice, name: str) -> SshHost:
    from wirespeed.hosts.ssh import SshHost
    from wirespeed.hosts.ssh_target import SshTarget

    return SshHost(SshTarget.parse(device.target_text), settings_for(device), name=name)
