"""SshHost against a real SSH device: dropbear with busybox as its only /usr/bin, in the
DUT namespace of a lab built with dut_access="ssh", reached from its management
namespace (lab/ssh_dut.py). Nothing is mocked: host keys, logins, dropped connections
and a device that stops answering are all real.

The device's /tmp is this machine's /tmp (dropbear's private mount namespace binds only
/usr/bin and /etc files), so the tests look at a session's directory directly, and the
`hosts` fixture removes every session directory its hosts made, whatever happened.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import hashlib
import os
import shutil
import signal
import statistics
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from wirespeed.errors import MissingToolError
from wirespeed.hosts import ssh_connection
from wirespeed.hosts.sockets import listening
from wirespeed.hosts.ssh import LOST, SshHost
from wirespeed.hosts.ssh_destination import CONNECT_TIMEOUT, SshError
from wirespeed.hosts.ssh_target import SshTarget
from wirespeed.lab import ssh_dut
from wirespeed.lab.lab import Lab
from wirespeed.model import Proto, Topology

pytestmark = [
    pytest.mark.root,
    pytest.mark.skipif(
        any(shutil.which(p) is None for p in ("busybox", "dropbearkey", "iperf3"))
        or not os.path.exists("/usr/sbin/dropbear"),
        reason="needs busybox, dropbear (dropbear-bin) and iperf3",
    ),
]

MakeLab = Callable[..., Lab]  # the make_lab fixture of tests/integration/conftest.py
MakeHost = Callable[..., SshHost]


# -- fixtures and helpers ------------------------------------------------------------------


@pytest.fixture
def hosts() -> Iterator[list[SshHost]]:
    """SshHosts a test made or used: closed, and their session directories removed."""
    made: list[SshHost] = []
    try:
        yield made
    finally:
        for host in made:
            with contextlib.suppress(Exception):
                host.close()
            shutil.rmtree(host.base, ignore_errors=True)
        with contextlib.suppress(OSError):
            os.rmdir("/tmp/wirespeed")  # only if no one else's session is there


@pytest.fixture
def lab(make_lab: MakeLab, hosts: list[SshHost]) -> Lab:
    lab = make_lab(Topology.BRIDGE, dut_access="ssh")
    assert lab.ssh_host is not None and lab.ssh_device is not None
    hosts.append(lab.ssh_host)
    return lab


@pytest.fixture
def host(lab: Lab) -> SshHost:
    assert lab.ssh_host is not None
    return lab.ssh_host


@pytest.fixture
def device(lab: Lab) -> ssh_dut.SshDevice:
    assert lab.ssh_device is not None
    return lab.ssh_device


@pytest.fixture
def make_host(device: ssh_dut.SshDevice, hosts: list[SshHost]) -> MakeHost:
    """Another SshHost for the lab's device; keyword arguments change its SshSettings."""

    def make(target: str | None = None, **changes: object) -> SshHost:
        settings = dataclasses.replace(ssh_dut.settings_for(device), **changes)  # type: ignore[arg-type]
        host = SshHost(SshTarget.parse(target or device.target_text), settings, name="dut")
        hosts.append(host)
        return host

    return make


def namespace_processes(namespace: str) -> dict[int, str]:
    """PID -> command name of every live process in the network namespace."""
    listed = subprocess.run(
        ["ip", "netns", "pids", namespace], capture_output=True, text=True, check=True, timeout=10
    ).stdout.split()
    found: dict[int, str] = {}
    for pid in map(int, listed):
        try:
            with open(f"/proc/{pid}/stat") as handle:
                stat = handle.read()
        except FileNotFoundError:
            continue
        name, _, rest = stat.partition("(")[2].rpartition(") ")
        if not rest.startswith("Z"):
            found[pid] = name
    return found


def foreign_processes(lab: Lab) -> dict[int, str]:
    """What runs in the DUT namespace besides dropbear itself."""
    return {
        pid: name
        for pid, name in namespace_processes(lab.dut_namespace).items()
        if name != "dropbear"
    }


def dropbear_listener(device: ssh_dut.SshDevice) -> int:
    return int((device.directory / "dropbear.pid").read_text())


def dropbear_children(lab: Lab, device: ssh_dut.SshDevice) -> list[int]:
    """The dropbear processes serving connections (one per connection)."""
    listener = dropbear_listener(device)
    return [
        pid
        for pid, name in namespace_processes(lab.dut_namespace).items()
        if name == "dropbear" and pid != listener
    ]


def until(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"not within {timeout} s: {what}"
        time.sleep(0.05)


def host_key_fingerprint(device: ssh_dut.SshDevice) -> str:
    blob = device.known_hosts.read_text().split()[2]
    digest = hashlib.sha256(base64.b64decode(blob)).digest()
    return "SHA256:" + base64.b64encode(digest).decode().rstrip("=")


def new_ed25519(private_path: Path | None = None) -> str:
    """A fresh ed25519 key: its public line; the private key written if a path is given."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    key = Ed25519PrivateKey.generate()
    if private_path is not None:
        private_path.write_bytes(
            key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.OpenSSH,
                serialization.NoEncryption(),
            )
        )
        private_path.chmod(0o600)
    return (
        key.public_key()
        .public_bytes(serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH)
        .decode()
    )


# -- what a run needs: commands, files, programs ----------------------------------------


def test_run_read_file_write_file_and_which(host: SshHost, tmp_path: Path) -> None:
    done = host.run(["sh", "-c", "echo to-out; echo to-err >&2; exit 3"])
    assert (done.returncode, done.stdout, done.stderr) == (3, "to-out\n", "to-err\n")
    assert done.argv == ("sh", "-c", "echo to-out; echo to-err >&2; exit 3")

    marker = tmp_path / "pwned"
    hostile = ["a;b", f"$(touch {marker})", f"`touch {marker}`", 'it\'s "q"', "x\ny", "-n", ""]
    done = host.run(["printf", "%s\\n", *hostile])
    assert done.stdout == "".join(word + "\n" for word in hostile)
    assert not marker.exists()

    # /proc/net is the DUT namespace's: its management port is there.
    assert "mgmt:" in host.read_file("/proc/net/dev")
    with pytest.raises(FileNotFoundError):
        host.read_file("/proc/no-such-file")

    knob = "/proc/sys/net/ipv4/tcp_notsent_lowat"
    host.write_file(knob, "131072")
    assert host.read_file(knob).strip() == "131072"
    written = tmp_path / "written"
    text = f"no final newline $(touch {marker}) 'q' \"d\" %s %n \\n\n\nend"
    host.write_file(str(written), text)
    assert written.read_text() == text
    assert host.read_file(str(written)) == text
    assert not marker.exists()

    assert host.which("iperf3") == "/usr/bin/iperf3"
    assert host.which("cat") == "/usr/bin/cat"
    assert host.which("no-such-program") is None
    with pytest.raises(MissingToolError):
        host.run(["no-such-program", "x"])


def test_the_device_has_busybox_sh_and_no_bash(host: SshHost) -> None:
    shell = host.run(["sh", "-c", 'readlink "/proc/$$/exe"']).stdout.strip()
    assert shell.endswith("/busybox")
    assert host.which("bash") is None
    assert host.which("python3") is None
    with pytest.raises(MissingToolError):
        host.run(["bash", "-c", "true"])
    # The scripts' own shell (`sh -s`) is busybox too.
    assert host.command('readlink "/proc/$$/exe"\n').strip().endswith("/busybox")


def test_a_server_started_over_ssh_listens_and_stops(host: SshHost, lab: Lab) -> None:
    server = host.start(["iperf3", "-s", "-1", "-p", "15801"])
    try:
        until(lambda: listening(host, server.pid, 15801, Proto.TCP), 5, "iperf3 listening")
        assert server.poll() is None
        assert namespace_processes(lab.dut_namespace).get(server.pid) == "iperf3"
    finally:
        started = time.monotonic()
        status = server.stop()
        took = time.monotonic() - started
    assert isinstance(status, int) and status != LOST
    assert took < 5
    assert server.pid not in namespace_processes(lab.dut_namespace)
    assert not listening(host, None, 15801, Proto.TCP)
    # Nothing of the program is left: what remains is the session's watchdog (until
    # close) and, at most, the shell of a poll in flight.
    directory = f"{host.base}/1"

    def program_left() -> list[int]:
        left = []
        for pid in foreign_processes(lab):
            with contextlib.suppress(OSError):
                cwd = os.readlink(f"/proc/{pid}/cwd")
                if cwd == directory or cwd.startswith(directory + "/"):
                    left.append(pid)
        return left

    until(lambda: not program_left(), 5, "no process of the program left")
    host.close()
    until(lambda: not foreign_processes(lab), 5, "nothing but dropbear in the DUT namespace")


def test_output_lines_and_status_come_back(host: SshHost) -> None:
    lines: list[str] = []
    # A UTF-8 character split across two writes a poll apart, and no final newline.
    script = (
        r"printf 'one\nt'; sleep 1.2; printf '\303'; sleep 1.2; printf '\251\nlast'; "
        "echo oops >&2; exit 3"
    )
    process = host.start(["sh", "-c", script], on_line=lines.append)
    assert process.wait(15) == 3
    assert process.stdout() == "one\nté\nlast"
    assert lines == ["one", "té", "last"]
    assert process.stderr() == "oops\n"
    assert process.poll() == 3
    process.send_signal()  # after its end: a no-op
    assert process.stop() == 3


def test_a_large_output_arrives_whole_across_polls(host: SshHost) -> None:
    lines: list[str] = []
    process = host.start(["seq", "1", "200000"], on_line=lines.append)
    assert process.wait(30) == 0
    expected = [str(n) for n in range(1, 200001)]
    assert process.stdout() == "\n".join(expected) + "\n"
    assert lines == expected


def test_a_program_killed_by_a_signal_reports_minus_the_signal(host: SshHost) -> None:
    process = host.start(["sh", "-c", "trap '' TERM; while :; do sleep 1; done"])
    assert process.stop(grace=0.5) == -signal.SIGKILL


def test_close_stops_every_program_and_removes_the_session(host: SshHost, lab: Lab) -> None:
    sleepers = [host.start(["sleep", "600"]) for _ in range(2)]
    done = host.start(["true"])
    assert done.wait(10) == 0
    session = Path(host.base)
    assert session.is_dir()
    started = time.monotonic()
    host.close()
    took = time.monotonic() - started
    assert not session.exists()
    assert all(process.poll() == LOST for process in sleepers)
    until(lambda: not foreign_processes(lab), 5, "nothing but dropbear in the DUT namespace")
    assert took < 10
    with pytest.raises(SshError):
        host.run(["true"])


def test_a_program_whose_files_vanish_is_lost_not_running_forever(host: SshHost) -> None:
    # As after a reboot or the watchdog's cleanup during a long outage.
    process = host.start(["sleep", "600"])
    try:
        shutil.rmtree(f"{host.base}/1")
        assert process.wait(10) == LOST
        assert "gone" in process.stderr()
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(process.pid, signal.SIGKILL)  # its pid file is gone: close cannot


# -- who they are and who we are ---------------------------------------------------------


def test_an_unknown_host_key_is_refused_with_its_fingerprint(
    make_host: MakeHost, tmp_path: Path, device: ssh_dut.SshDevice
) -> None:
    empty = tmp_path / "known_hosts"
    empty.touch()
    host = make_host(known_hosts=(empty,))
    with pytest.raises(SshError) as raised:
        host.connect()
    message = raised.value.message
    assert "unknown" in message
    assert host_key_fingerprint(device) in message
    assert "ssh-ed25519" in message
    assert str(empty) in message
    assert raised.value.hint is not None and "--accept-new-host-key" in raised.value.hint
    assert empty.read_text() == ""  # nothing trusted behind the user's back


def test_a_changed_host_key_is_refused_loudly(
    make_host: MakeHost, tmp_path: Path, device: ssh_dut.SshDevice
) -> None:
    other = tmp_path / "known_hosts"
    other.write_text(f"{device.address} {new_ed25519()}\n")
    host = make_host(known_hosts=(other,))
    with pytest.raises(SshError) as raised:
        host.connect()
    assert "CHANGED" in raised.value.message
    assert host_key_fingerprint(device) in raised.value.message
    assert raised.value.hint is not None and "ssh-keygen -R" in raised.value.hint
    # Even with accept-new: a changed key is never trusted.
    with pytest.raises(SshError) as again:
        make_host(known_hosts=(other,), accept_new=True).connect()
    assert "CHANGED" in again.value.message


def test_accept_new_records_the_key_once_then_checks_it_strictly(
    make_host: MakeHost, tmp_path: Path, device: ssh_dut.SshDevice
) -> None:
    known = tmp_path / "ssh" / "known_hosts"
    notes: list[str] = []
    first = make_host(known_hosts=(known,), accept_new=True, on_note=notes.append)
    first.connect()
    assert first.run(["true"]).returncode == 0
    recorded = known.read_text()
    assert recorded.split() == device.known_hosts.read_text().split()
    assert known.stat().st_mode & 0o777 == 0o600
    assert len(notes) == 1 and host_key_fingerprint(device) in notes[0]
    second = make_host(known_hosts=(known,))
    second.connect()
    assert second.run(["echo", "hi"]).stdout == "hi\n"
    assert known.read_text() == recorded


def test_a_hashed_known_hosts_file_is_understood(
    make_host: MakeHost, tmp_path: Path, device: ssh_dut.SshDevice
) -> None:
    # Debian's ssh_config hashes known_hosts (HashKnownHosts yes).
    known = tmp_path / "known_hosts"
    shutil.copy(device.known_hosts, known)
    subprocess.run(["ssh-keygen", "-H", "-f", str(known)], capture_output=True, check=True)
    assert device.address not in known.read_text()
    host = make_host(known_hosts=(known,))
    assert host.run(["echo", "ok"]).stdout == "ok\n"


def test_a_known_hosts_line_paramiko_cannot_read_is_an_ssh_error(
    make_host: MakeHost, tmp_path: Path, device: ssh_dut.SshDevice
) -> None:
    # OpenSSH's @cert-authority and @revoked markers, a damaged line: never a traceback.
    for odd in (
        f"@cert-authority *.example {new_ed25519()}",
        f"@revoked {device.address} {new_ed25519()}",
        f"{device.address} ssh-ed25519 not-base64!",
    ):
        known = tmp_path / "known_hosts"
        known.write_text(f"{odd}\n{device.known_hosts.read_text()}")
        with pytest.raises(SshError) as raised:
            make_host(known_hosts=(known,)).connect()
        assert str(known) in raised.value.message, odd


def test_a_known_host_of_another_key_type_is_not_taken_for_a_new_one(
    make_host: MakeHost, tmp_path: Path
) -> None:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    public = (
        ec.generate_private_key(ec.SECP256R1())
        .public_key()
        .public_bytes(serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH)
        .decode()
    )
    known = tmp_path / "known_hosts"
    known.write_text(f"{ssh_dut.DUT_ADDRESS} {public}\n")
    with pytest.raises(SshError) as raised:
        make_host(known_hosts=(known,), accept_new=True).connect()
    assert "ecdsa-sha2-nistp256" in raised.value.message
    assert known.read_text().count("\n") == 1  # accept-new added nothing


def test_an_alias_of_the_ssh_config_leads_to_the_device(
    make_host: MakeHost, tmp_path: Path, device: ssh_dut.SshDevice
) -> None:
    config = tmp_path / "config"
    config.write_text(
        "Host the-dut\n"
        f"  HostName {device.address}\n"
        f"  User {device.user}\n"
        f"  IdentityFile {device.client_key}\n"
        f"  UserKnownHostsFile {device.known_hosts}\n"
    )
    host = make_host("the-dut", config_path=config, identities=(), known_hosts=())
    assert host.destination.identities == (device.client_key,)
    assert host.run(["id", "-u"]).stdout == "0\n"


def test_connecting_sweeps_what_a_dead_session_left(
    host: SshHost, make_host: MakeHost, lab: Lab
) -> None:
    # A wirespeed killed with its watchdog: its program and files stay until the next
    # connection's sweep.
    orphan = host.start(["sleep", "600"])
    watchdog = int(Path(host.base, "watchdog").read_text())
    os.kill(watchdog, signal.SIGKILL)
    until(lambda: watchdog not in namespace_processes(lab.dut_namespace), 5, "watchdog gone")
    until(lambda: not os.path.exists(f"/proc/{watchdog}"), 5, "watchdog reaped")
    host.connection.close()  # wirespeed gone without a word
    assert orphan.wait(10) == LOST
    newcomer = make_host()
    newcomer.connect()
    assert not Path(host.base).exists()
    until(lambda: orphan.pid not in namespace_processes(lab.dut_namespace), 5, "orphan killed")


def test_a_key_the_device_does_not_know_is_refused_with_a_hint(
    make_host: MakeHost, tmp_path: Path
) -> None:
    stranger = tmp_path / "id_ed25519"
    new_ed25519(stranger)
    host = make_host(identities=(stranger,))
    started = time.monotonic()
    with pytest.raises(SshError) as raised:
        host.connect()
    assert time.monotonic() - started < 5
    assert "refused every login" in raised.value.message
    assert "ssh-ed25519 SHA256:" in raised.value.message
    assert raised.value.hint is not None and "authorized_keys" in raised.value.hint


# -- when the connection breaks ----------------------------------------------------------


def test_a_dropped_connection_is_reestablished_and_the_program_goes_on(
    host: SshHost, lab: Lab, device: ssh_dut.SshDevice
) -> None:
    process = host.start(["sh", "-c", "sleep 4; echo done"])
    time.sleep(0.5)
    children = dropbear_children(lab, device)
    assert children, "no dropbear serves the connection"
    for pid in children:
        os.kill(pid, signal.SIGKILL)
    assert process.wait(20) == 0
    assert process.stdout() == "done\n"
    assert host.connection.reconnects == 1
    assert host.run(["true"]).returncode == 0


def test_a_refused_connection_fails_fast_and_then_at_once(make_host: MakeHost) -> None:
    host = make_host(f"{ssh_dut.USER}@{ssh_dut.DUT_ADDRESS}:2222")
    started = time.monotonic()
    with pytest.raises(SshError) as raised:
        host.connect()
    took = time.monotonic() - started
    assert "refused" in raised.value.message
    assert took < CONNECT_TIMEOUT + 3
    started = time.monotonic()
    for _ in range(3):
        with pytest.raises(SshError):
            host.run(["true"])
    assert time.monotonic() - started < 1, "no cooldown: every command waited again"


def test_a_device_that_stops_answering_fails_within_the_timeout_then_at_once(
    make_host: MakeHost, device: ssh_dut.SshDevice, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A frozen dropbear accepts TCP (the kernel does) but never says a word.
    monkeypatch.setattr(ssh_connection, "UNREACHABLE_COOLDOWN", 2.0)
    host = make_host(connect_timeout=2.0)
    listener = dropbear_listener(device)
    os.kill(listener, signal.SIGSTOP)
    try:
        started = time.monotonic()
        with pytest.raises(SshError):
            host.connect()
        took = time.monotonic() - started
        assert took < 2.0 + 3
        started = time.monotonic()
        with pytest.raises(SshError):
            host.run(["true"])
        assert time.monotonic() - started < 1
    finally:
        os.kill(listener, signal.SIGCONT)
    time.sleep(2.0)  # the cooldown ends: the device is tried again
    assert host.run(["true"]).returncode == 0


def test_a_device_gone_mid_session_loses_its_programs_quickly(
    host: SshHost, lab: Lab, device: ssh_dut.SshDevice
) -> None:
    process = host.start(["sleep", "600"])
    os.kill(dropbear_listener(device), signal.SIGKILL)
    for pid in dropbear_children(lab, device):
        os.kill(pid, signal.SIGKILL)
    started = time.monotonic()
    assert process.wait(30) == LOST
    assert "lost contact" in process.stderr()
    assert time.monotonic() - started < CONNECT_TIMEOUT * 2 + 5
    started = time.monotonic()
    with pytest.raises(SshError):
        host.run(["true"])
    host.close()  # cannot reach it to clean up: must not hang either
    assert time.monotonic() - started < 2
    with contextlib.suppress(ProcessLookupError):
        os.kill(process.pid, signal.SIGKILL)  # the device's own cleanup never came


def test_a_program_lost_from_sight_is_still_stopped_by_close(
    host: SshHost, lab: Lab, device: ssh_dut.SshDevice, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Out of contact, wirespeed cannot tell how a program ended; once the device is back,
    # its files must stay (they are how close() finds it), or it runs on forever.
    monkeypatch.setattr(ssh_connection, "UNREACHABLE_COOLDOWN", 0.5)
    lost = host.start(["sleep", "600"])
    os.kill(dropbear_listener(device), signal.SIGKILL)
    for pid in dropbear_children(lab, device):
        os.kill(pid, signal.SIGKILL)
    assert lost.wait(30) == LOST
    ssh_dut.start_server(device, lab.dut_namespace)  # the device is back
    time.sleep(0.5)
    later = host.start(["true"])
    assert later.wait(10) == 0
    assert namespace_processes(lab.dut_namespace).get(lost.pid) == "sleep"
    host.close()
    until(lambda: lost.pid not in namespace_processes(lab.dut_namespace), 5, "the lost one ended")
    until(lambda: not foreign_processes(lab), 5, "nothing but dropbear in the DUT namespace")


# -- how fast --------------------------------------------------------------------------


def test_per_command_latency(host: SshHost, capsys: pytest.CaptureFixture[str]) -> None:
    for _ in range(5):  # warm up
        host.run(["true"])
    times = []
    for _ in range(50):
        started = time.perf_counter()
        assert host.run(["true"]).returncode == 0
        times.append(time.perf_counter() - started)
    median = statistics.median(times) * 1000
    with capsys.disabled():
        print(
            f"\nSSH per-command latency (run(['true']), 50 runs): median {median:.1f} ms, "
            f"min {min(times) * 1000:.1f} ms, max {max(times) * 1000:.1f} ms",
        )
