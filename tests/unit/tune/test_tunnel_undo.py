"""A tunnel end's journal row: what it may name, and its undo run for real on this
machine (a daemon whose command line names the device is stopped, a stranger that took
a pid file's pid is not, the directory goes), as recovery does after a crash."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import time
from pathlib import Path

import pytest

from wirespeed.hosts.local import LocalHost
from wirespeed.process_owner import process_owner
from wirespeed.tune.apply import recover
from wirespeed.tune.journal import Journal, State
from wirespeed.tune.ports import restored_words
from wirespeed.tune.targets import Kind, RefusedError, check_value, parse_target
from wirespeed.tune.tunnel_undo import (
    TunnelEnd,
    gone_argv,
    removed_words,
    tunnel_directory,
    tunnel_target,
)


def test_a_row_names_a_device_and_a_directory_of_wirespeed_only() -> None:
    end = TunnelEnd("wsw0123456789n", tunnel_directory("0123456789ab"))
    assert TunnelEnd.from_json(end.to_json()) == end
    assert end.socket == "/var/run/wireguard/wsw0123456789n.sock"
    target = parse_target(tunnel_target(end.dev))
    assert target.kind is Kind.TUNNEL and not target.is_file
    assert check_value(target, end.to_json()) == end.to_json()
    for directory in ("/", "/tmp", "/tmp/wirespeed-tunnel-../../etc", "/home/x"):
        with pytest.raises(RefusedError, match="refused tunnel directory"):
            TunnelEnd.from_json(f'{{"dev": "wsw1", "directory": "{directory}"}}')
    with pytest.raises(RefusedError, match="interface name"):
        TunnelEnd.from_json('{"dev": "a/b", "directory": "/tmp/wirespeed-tunnel-0123456789ab"}')
    with pytest.raises(RefusedError, match="refused tunnel record"):
        TunnelEnd.from_json("[]")
    other = TunnelEnd("wsw9", end.directory).to_json()
    with pytest.raises(RefusedError, match="another tunnel"):
        check_value(target, other)


def test_recovery_says_what_it_removed() -> None:
    end = TunnelEnd("wso0123456789f", tunnel_directory("0123456789ab"))
    said = removed_words(tunnel_target(end.dev), end.to_json(), "root@router")
    assert said is not None and said.startswith("tunnel wso0123456789f on root@router removed")
    assert removed_words("port:eth0", "{}", "local") is None
    assert restored_words(tunnel_target(end.dev), end.to_json()) is None


def dead_owner() -> str:
    return process_owner().rsplit("/", 1)[0] + "/0"


@pytest.mark.process
def test_after_a_crash_recovery_stops_the_daemon_and_removes_the_directory(
    tmp_path: Path,
) -> None:
    dev = f"wsw{secrets.token_hex(5)}n"
    end = TunnelEnd(dev, tunnel_directory(secrets.token_hex(6)))
    os.mkdir(end.directory, 0o700)
    # The daemon names its device on its command line, as openvpn and wireguard-go do;
    # the stranger took a pid file of a daemon that is long gone.
    daemon = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", dev])
    stranger = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        Path(end.directory, "wireguard-go.pid").write_text(f"{daemon.pid}\n")
        Path(end.directory, "openvpn.pid").write_text(f"{stranger.pid}\n")
        Path(end.directory, "private.key").write_text("secret\n")
        host = LocalHost()
        assert host.run(gone_argv(end)).returncode != 0
        with Journal.open(tmp_path / "s.db", owner=dead_owner()) as crashed:
            crashed.record(
                session="s",
                position=0,
                host="local",
                host_boot=None,
                target=tunnel_target(dev),
                previous=end.to_json(),
                new="up",
                why="a tunnel end",
                state=State.APPLIED,
            )
        started = time.monotonic()
        with Journal.open(tmp_path / "s.db") as journal:
            recovery = recover(journal, lambda _name: host)
            assert recovery.clean, recovery
            assert journal.open_entries() == []
        assert time.monotonic() - started < 5  # TERM was enough: no 3 s wait for KILL
        assert daemon.wait(timeout=5) == -15
        assert stranger.poll() is None
        assert not os.path.exists(end.directory)
        assert host.run(gone_argv(end)).returncode == 0
    finally:
        for process in (daemon, stranger):
            process.kill()
            process.wait()
        subprocess.run(["rm", "-rf", end.directory], check=False)
