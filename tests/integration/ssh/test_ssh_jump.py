"""ProxyJump for real: the lab's SSH DUT reached through a second dropbear, the jump host,
which this file starts in the lab's management namespace on 127.0.0.1:2222.

wirespeed's side may open a TCP connection only to the jump host (the socket factory
refuses anything else), so a device that answers proves the connection went through the
jump host's direct-tcpip channel, as `ssh -W %h:%p jump` would.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from wirespeed.hosts.ssh import SshHost
from wirespeed.hosts.ssh_destination import SshError, SshSettings
from wirespeed.hosts.ssh_target import SshTarget
from wirespeed.lab import ssh_dut
from wirespeed.lab.lab import Lab
from wirespeed.model import Topology

pytestmark = [
    pytest.mark.root,
    pytest.mark.skipif(
        any(shutil.which(p) is None for p in ("busybox", "dropbearkey", "unshare"))
        or not os.path.exists("/usr/sbin/dropbear"),
        reason="needs busybox and dropbear (dropbear-bin)",
    ),
]

MakeLab = Callable[..., Lab]  # the make_lab fixture of tests/integration/conftest.py
JUMP_ADDRESS = "127.0.0.1"
JUMP_PORT = 2222

# The jump host's root has a home of the test's (authorized_keys: the lab's client key)
# only inside dropbear's private mount namespace; it may forward (no -j, unlike the DUT).
_JUMP_SCRIPT = """\
set -e
mount --bind "$1/passwd" /etc/passwd
exec /usr/sbin/dropbear -F -E -s -p "$2" -r "$1/host_key"
"""


@dataclasses.dataclass
class Jump:
    lab: Lab
    device: ssh_dut.SshDevice
    directory: Path
    known_hosts: Path
    opened: list[tuple[str, int]]  # every TCP connection wirespeed's side opened

    def settings(self, config: str, **changes: object) -> SshSettings:
        path = self.directory / "ssh_config"
        path.write_text(config)

        def only_to_the_jump_host(host: str, port: int, timeout: float) -> socket.socket:
            self.opened.append((host, port))
            if (host, port) != (JUMP_ADDRESS, JUMP_PORT):
                raise ConnectionRefusedError(f"the test lets no connection go to {host}:{port}")
            return ssh_dut.open_socket(self.device.mgmt_namespace, host, port, timeout)

        settings = dataclasses.replace(
            ssh_dut.settings_for(self.device),
            config_path=path,
            known_hosts=(self.known_hosts,),
            socket_factory=only_to_the_jump_host,
        )
        return dataclasses.replace(settings, **changes)  # type: ignore[arg-type]


def _dropbear_processes(namespace: str) -> list[int]:
    listed = subprocess.run(
        ["ip", "netns", "pids", namespace], capture_output=True, text=True, check=True, timeout=10
    ).stdout.split()
    found = []
    for pid in map(int, listed):
        with contextlib.suppress(OSError):
            if Path(f"/proc/{pid}/comm").read_text().strip() == "dropbear":
                found.append(pid)
    return found


@pytest.fixture
def jump(make_lab: MakeLab, tmp_path: Path) -> Iterator[Jump]:
    lab = make_lab(Topology.BRIDGE, dut_access="ssh")
    device = lab.ssh_device
    assert device is not None and lab.ssh_host is not None
    lab.ssh_host.close()  # the tests make their own connections
    directory = tmp_path / "jump"
    (directory / "home" / ".ssh").mkdir(parents=True, mode=0o700)
    (directory / "passwd").write_text(f"root:x:0:0:root:{directory / 'home'}:/bin/sh\n")
    import paramiko

    client = paramiko.PKey.from_path(str(device.client_key))
    authorized = directory / "home" / ".ssh" / "authorized_keys"
    authorized.write_text(f"{client.get_name()} {client.get_base64()}\n")
    authorized.chmod(0o600)
    subprocess.run(
        ["dropbearkey", "-t", "ed25519", "-f", str(directory / "host_key")],
        capture_output=True,
        check=True,
        timeout=30,
    )
    public = subprocess.run(
        ["dropbearkey", "-y", "-f", str(directory / "host_key")],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    ).stdout
    key_line = next(line for line in public.splitlines() if line.startswith("ssh-"))
    kind, blob = key_line.split()[:2]
    known_hosts = directory / "known_hosts"
    known_hosts.write_text(
        device.known_hosts.read_text() + f"[{JUMP_ADDRESS}]:{JUMP_PORT} {kind} {blob}\n"
    )
    namespace = device.mgmt_namespace
    command = ["ip", "netns", "exec", namespace, "unshare", "--mount", "--propagation"]
    command += ["private", "/bin/sh", "-c", _JUMP_SCRIPT, "sh", str(directory)]
    command += [f"{JUMP_ADDRESS}:{JUMP_PORT}"]
    log = directory / "dropbear.log"
    with open(log, "wb") as errors:
        server = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=errors, start_new_session=True
        )
    try:
        deadline = time.monotonic() + 5
        while True:
            try:
                ssh_dut.open_socket(namespace, JUMP_ADDRESS, JUMP_PORT, 1.0).close()
                break
            except OSError:
                assert server.poll() is None, log.read_text()
                assert time.monotonic() < deadline, "the jump host's dropbear did not listen"
                time.sleep(0.02)
        yield Jump(lab, device, directory, known_hosts, [])
    finally:
        # The management namespace holds only this dropbear and the children serving
        # its connections: all of them are ours.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.pid, signal.SIGTERM)
        for pid in _dropbear_processes(namespace):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
        server.wait(10)


CONFIG = f"""\
Host dut
  HostName {ssh_dut.DUT_ADDRESS}
  ProxyJump jumphost

Host chain
  HostName {ssh_dut.DUT_ADDRESS}
  ProxyJump jumphost,root@{JUMP_ADDRESS}:{JUMP_PORT}

Host jumphost
  HostName {JUMP_ADDRESS}
  Port {JUMP_PORT}
  User root
"""


def _connected_from(host: SshHost) -> str:
    """SSH_CONNECTION as the device sees it: client address, port, server address, port."""
    return host.run(["sh", "-c", 'echo "$SSH_CONNECTION"']).stdout.strip()


def _hosts(*hosts: SshHost) -> contextlib.ExitStack:
    stack = contextlib.ExitStack()
    for host in hosts:
        stack.callback(host.close)
    return stack


def test_a_device_behind_a_proxy_jump_is_reached_through_the_jump_host(jump: Jump) -> None:
    host = SshHost(SshTarget.parse("root@dut"), jump.settings(CONFIG), name="dut")
    with _hosts(host):
        host.connect()
        seen = _connected_from(host).split()
        # The DUT's own dropbear answered, on its own address and port.
        assert seen[2:] == [ssh_dut.DUT_ADDRESS, str(ssh_dut.SSH_PORT)]
        assert "mgmt:" in host.read_file("/proc/net/dev")
        assert jump.opened == [(JUMP_ADDRESS, JUMP_PORT)]

        # A lost connection to the device comes back through the same jump host.
        host.connection._drop()
        assert host.run(["echo", "again"]).stdout == "again\n"
        assert set(jump.opened) == {(JUMP_ADDRESS, JUMP_PORT)}


def test_a_proxy_jump_chain_goes_through_every_host(jump: Jump) -> None:
    host = SshHost(SshTarget.parse("root@chain"), jump.settings(CONFIG), name="dut")
    with _hosts(host):
        host.connect()
        assert _connected_from(host).split()[2] == ssh_dut.DUT_ADDRESS
        assert jump.opened == [(JUMP_ADDRESS, JUMP_PORT)]  # only the first hop directly


def test_host_keys_are_checked_as_strictly_through_a_jump_host(jump: Jump) -> None:
    device_line = jump.device.known_hosts.read_text()
    # The device's key unknown: refused, though the jump host is trusted.
    jump.known_hosts.write_text(jump.known_hosts.read_text().replace(device_line, ""))
    host = SshHost(SshTarget.parse("root@dut"), jump.settings(CONFIG), name="dut")
    with _hosts(host), pytest.raises(SshError) as raised:
        host.connect()
    assert f"the host key of root@{ssh_dut.DUT_ADDRESS}:22 is unknown" in raised.value.message
    # The jump host's key unknown: refused, and said so.
    jump.known_hosts.write_text(device_line)
    host = SshHost(SshTarget.parse("root@dut"), jump.settings(CONFIG), name="dut")
    with _hosts(host), pytest.raises(SshError) as raised:
        host.connect()
    message = raised.value.message
    assert "through its ProxyJump host" in message
    assert f"the host key of root@{JUMP_ADDRESS}:{JUMP_PORT} is unknown" in message


def test_a_jump_host_that_will_not_forward_is_a_clear_error(jump: Jump) -> None:
    # The lab's DUT runs dropbear -j (no forwarding): as a jump host it must refuse.
    config = f"Host behind-dut\n  HostName 192.0.2.1\n  ProxyJump root@{ssh_dut.DUT_ADDRESS}\n"
    settings = jump.settings(
        config, socket_factory=ssh_dut.settings_for(jump.device).socket_factory
    )
    host = SshHost(SshTarget.parse("root@behind-dut"), settings, name="dut")
    with _hosts(host), pytest.raises(SshError) as raised:
        host.connect()
    assert (
        f"the ProxyJump host root@{ssh_dut.DUT_ADDRESS}:22 could not connect to it"
        in raised.value.message
    )
