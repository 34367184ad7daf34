"""A VPN tunnel between real hosts for the length of one trial: OpenVPN or WireGuard.

    with host_tunnel(spec, near, far, far_outer=..., link_mtu=..., journal=j) as tunnel:
        client connects to tunnel.target        # the far end's tunnel address
        tunnel.findings()                       # MTUs, DCO or userspace, kernel or -go
    # both daemons stopped, devices, sockets and key directories removed

The commands are the lab's (tools/openvpn.py, tools/wireguard.py), run through Host.run
and Host.start on a device over SSH (busybox sh and applets are enough: an OpenWrt router
with the `openvpn` and `wireguard-tools` packages) or on this machine. The near end is
the client; the far end is the DUT (`ends: dut` on an endpoint path, the DUT runs the
iperf server) or the server (`ends: through`: the DUT forwards the encrypted packets,
through NAT the client starts the tunnel).

On each end's host, before anything is made there, a row `tunnel:DEV` is journaled
(tune/tunnel_undo.py): the end's device name and its private directory
/tmp/wirespeed-tunnel-<hex>. Only then is the directory made (mode 0700), the keys put
in it, the daemon started (its pid written there before it execs) and the device
configured. Leaving the block stops the daemons and restores the rows, which removes
whatever is left; Ctrl-C and SIGTERM leave it the same way; after a SIGKILL the rows
stay open with a dead owner and the next run's recovery (tune/apply.py recover) removes
the ends as it restores any knob.

Keys: OpenVPN's certificates and keys are made on this machine with openssl (an OpenWrt
router rarely has the openssl command) in a private temporary directory, copied into
each end's directory through the SSH session's stdin (never on a command line) and
removed here at once. WireGuard's private keys are made on each end with `wg genkey`
and never leave it; only the public keys travel.

WireGuard uses the host's kernel module where `ip link add ... type wireguard` works,
else wireguard-go (a host with neither is refused when the run starts: it needs
kmod-wireguard or wireguard-go).
"""

from __future__ import annotations

import contextlib
import secrets
import shlex
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from wirespeed.errors import HostError, MissingToolError, WirespeedError
from wirespeed.hosts.base import Completed, Host, Process
from wirespeed.lab.tunnel import (
    FAR_ADDRESS,
    NEAR_ADDRESS,
    TUNNEL_SUBNET,
    describe_mtus,
    openvpn_findings,
)
from wirespeed.model import Finding, FindingKind, TunnelKind, TunnelSpec
from wirespeed.signals import deferred_signals
from wirespeed.tools import openvpn, tunnels, wireguard
from wirespeed.tune.journal import Journal, State
from wirespeed.tune.tunnel_undo import TunnelEnd, tunnel_directory, tunnel_target

__all__ = ["WIREGUARD_PACKAGES", "HostTunnel", "HostTunnelEnd", "host_tunnel", "tools_on_host"]

READY_SECONDS = 30.0  # a TLS handshake with a slow router's CPU over SSH polling
_POLL = 0.05
# A host without the kernel's wireguard module needs wireguard-go.
WIREGUARD_PACKAGES = {"OpenWrt": "kmod-wireguard", "Debian": "wireguard-go"}
WIREGUARD_MODULE = "/sys/module/wireguard"

# The daemon's pid written to its pid file before it becomes the daemon: recovery finds
# it there even when this process is gone.
_WITH_PID_FILE = 'echo $$ > "$1" && shift && exec "$@"'
# $1 the end's directory, $2 its device: prints the public key, then `kernel` when the
# kernel made the device, else `userspace`.
_KEYS_AND_DEVICE = """\
mkdir -m 700 "$1" && umask 077 && wg genkey > "$1/private.key" && wg pubkey < "$1/private.key" ||
  exit 1
if ip link add dev "$2" type wireguard 2>/dev/null; then echo kernel; else echo userspace; fi
"""
# Up to 30 s (READY_SECONDS) for wireguard-go's socket, while its process lives.
_WAIT_FOR_SOCKET = (
    "n=0; while [ ! -S {socket} ]; do "
    'kill -0 {pid} 2>/dev/null || {{ echo "wireguard-go exited" >&2; exit 1; }}; '
    "n=$((n + 1)); "
    '[ $n -gt 300 ] && {{ echo "no socket" >&2; exit 1; }}; '
    "sleep 0.1 2>/dev/null || {{ sleep 1; n=$((n + 9)); }}; done; "
)


def tools_on_host(kind: TunnelKind) -> list[str]:
    """What each end's host must have (WireGuard's kernel module or wireguard-go is
    asked apart: missing_wireguard)."""
    if kind is TunnelKind.OPENVPN:
        return ["openvpn"]
    return ["wg", "ip"]


def missing_wireguard(host: Host, where: str) -> MissingToolError | None:
    """A host with no wireguard module loaded and no wireguard-go: what to install."""
    if host.which("wireguard-go") is not None:
        return None
    if host.run(["test", "-d", WIREGUARD_MODULE], timeout=15.0).returncode == 0:
        return None
    return MissingToolError("wireguard-go", where, WIREGUARD_PACKAGES)


@dataclass
class HostTunnelEnd:
    """One end: the host it runs on, the name the journal reaches it by again (`local`
    or `user@host`), and its role in words ("client", "DUT", "server")."""

    host: Host
    journal_host: str
    where: str
    end: TunnelEnd = field(init=False)
    session: str | None = None
    process: Process | None = None
    kernel: bool = False  # WireGuard on the kernel's module
    boot: str | None = None  # the host's boot id, if known already (one read per run)
    entry: int | None = None  # its journal row

    def __post_init__(self) -> None:
        self.end = TunnelEnd(dev="", directory=tunnel_directory(secrets.token_hex(6)))

    @property
    def dev(self) -> str:
        return self.end.dev

    @property
    def directory(self) -> str:
        return self.end.directory

    def path(self, name: str) -> str:
        return f"{self.directory}/{name}"

    def text(self) -> str:
        if self.process is None:
            return ""
        return self.process.stdout() + self.process.stderr()


@dataclass
class HostTunnel:
    spec: TunnelSpec
    near: HostTunnelEnd
    far: HostTunnelEnd
    far_outer: str  # the far end's address the near end reaches it at
    link_mtu: int
    journal: Journal
    problems: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        # Names unique on every host (wireguard-go's sockets share one directory per
        # machine), short enough for IFNAMSIZ: ws + o|w + 10 hex + n|f.
        token = secrets.token_hex(5)
        letter = "o" if self.spec.kind is TunnelKind.OPENVPN else "w"
        for end, side in ((self.near, "n"), (self.far, "f")):
            end.end = TunnelEnd(dev=f"ws{letter}{token}{side}", directory=end.directory)

    @property
    def target(self) -> str:
        return FAR_ADDRESS

    @property
    def ends(self) -> tuple[HostTunnelEnd, HostTunnelEnd]:
        return (self.far, self.near)

    # -- up --------------------------------------------------------------------------

    def up(self) -> None:
        # Every end journaled before anything of either is made; each end's first
        # command (the keys) makes its directory.
        for end in self.ends:
            self._journal(end)
        if self.spec.kind is TunnelKind.OPENVPN:
            self._openvpn_up()
        else:
            self._wireguard_up()
        self._prove()

    def _journal(self, end: HostTunnelEnd) -> None:
        from wirespeed.tune.apply import host_boot_id

        session = self.journal.new_session()
        with deferred_signals():
            end.entry = self.journal.record(
                session=session,
                position=0,
                host=end.journal_host,
                host_boot=end.boot or host_boot_id(end.host),
                target=tunnel_target(end.dev),
                previous=end.end.to_json(),
                new="up",
                why=f"{self.spec.kind.value} tunnel, {end.where}'s end",
            )
            end.session = session

    def _made(self, end: HostTunnelEnd) -> None:
        """The end's directory and keys are there (its row: applied)."""
        if end.entry is not None:
            self.journal.set_state(end.entry, State.APPLIED)

    def _start(self, end: HostTunnelEnd, argv: Sequence[str]) -> Process:
        pid_file = end.path(f"{argv[0]}.pid")
        end.process = end.host.start(["sh", "-c", _WITH_PID_FILE, "sh", pid_file, *argv])
        return end.process

    def _openvpn_up(self) -> None:
        with tempfile.TemporaryDirectory(prefix="wirespeed-keys-") as keys:
            identities: dict[str, tuple[str, str, str]] = {}
            for end, name in ((self.far, "far"), (self.near, "near")):
                argv, cert, key = openvpn.identity_argv(Path(keys), name)
                _local_run(argv)
                fingerprint = openvpn.parse_fingerprint(_local_run(openvpn.fingerprint_argv(cert)))
                remote_cert, remote_key = end.path(f"{name}.crt"), end.path(f"{name}.key")
                files = {remote_cert: cert.read_text(), remote_key: key.read_text()}
                _put(end.host, end.directory, files)
                self._made(end)
                identities[name] = (remote_cert, remote_key, fingerprint)
        ends = {"far": (self.far, FAR_ADDRESS), "near": (self.near, NEAR_ADDRESS)}

        def openvpn_end(name: str, peer: str) -> openvpn.OpenVpnEnd:
            """One end's config, the other end's address and certificate its peer."""
            (end, local), (_, peer_address) = ends[name], ends[peer]
            cert, key, _ = identities[name]
            listening = name == "far"
            return openvpn.OpenVpnEnd(
                dev=end.dev,
                local=local,
                peer=peer_address,
                cert=Path(cert),
                key=Path(key),
                peer_fingerprint=identities[peer][2],
                server=listening,
                remote=None if listening else self.far_outer,
                multihome=listening,  # a real host may be reached at any of its addresses
            )

        far, near = openvpn_end("far", "near"), openvpn_end("near", "far")
        deadline = time.monotonic() + READY_SECONDS
        # The connecting end only once the other listens: a first handshake packet that
        # finds no one is retried seconds later, not at once.
        self._start(self.far, openvpn.end_argv(self.spec, far))
        self._wait(self.far, deadline, lambda text: openvpn.parse_log(text).listening)
        self._start(self.near, openvpn.end_argv(self.spec, near))
        for end in self.ends:
            self._wait(end, deadline, lambda text: openvpn.parse_log(text).ready)

    def _wireguard_up(self) -> None:
        public: dict[str, str] = {}
        for end in self.ends:
            # One round trip: the directory, the key, and the kernel's device if the
            # kernel has WireGuard (what a router with kmod-wireguard runs).
            done = _check(end.host, ["sh", "-c", _KEYS_AND_DEVICE, "sh", end.directory, end.dev])
            self._made(end)
            words = done.stdout.split()
            if len(words) != 2:
                raise HostError(f"wg genkey on {end.host.name} said {done.stdout.strip()!r}")
            public[end.dev], end.kernel = words[0], words[1] == "kernel"
        settings = {
            self.far.dev: wireguard.WireGuardEnd(
                dev=self.far.dev,
                private_key=Path(self.far.path("private.key")),
                peer_public_key=public[self.near.dev],
                allowed_ips=(f"{NEAR_ADDRESS}/32",),
                listen=True,
            ),
            self.near.dev: wireguard.WireGuardEnd(
                dev=self.near.dev,
                private_key=Path(self.near.path("private.key")),
                peer_public_key=public[self.far.dev],
                allowed_ips=(TUNNEL_SUBNET,),
                listen=False,
                endpoint=self.far_outer,
            ),
        }
        mtu = str(tunnels.inner_mtu(self.spec))
        for end, address in ((self.far, FAR_ADDRESS), (self.near, NEAR_ADDRESS)):
            # No kernel device: wireguard-go, which serves its configuration on a socket
            # once it is up; the host waits for the socket (while the daemon lives).
            wait = ""
            if not end.kernel:
                process = self._start(end, wireguard.userspace_argv(end.dev))
                wait = _WAIT_FOR_SOCKET.format(socket=shlex.quote(end.end.socket), pid=process.pid)
            # One round trip: `wg set`, then the address and the MTU, each only if the
            # one before worked (every word quoted, as Host.run quotes an argv).
            configure = [
                wireguard.set_argv(settings[end.dev]),
                ["ip", "address", "add", f"{address}/24", "dev", end.dev],
                ["ip", "link", "set", "dev", end.dev, "mtu", mtu, "up"],
            ]
            script = wait + " && ".join(shlex.join(argv) for argv in configure)
            done = end.host.run(["sh", "-c", script], timeout=READY_SECONDS + 15.0)
            if done.returncode != 0:
                raise HostError(
                    f"WireGuard on {end.host.name} ({end.where}) was not set up: "
                    f"{done.stderr.strip() or done.stdout.strip()} "
                    f"({_last_words(end.text())})"
                )

    def _wait(self, end: HostTunnelEnd, deadline: float, ready: Callable[[str], bool]) -> None:
        self._wait_for(end, deadline, lambda: ready(end.text()))

    def _wait_for(self, end: HostTunnelEnd, deadline: float, ready: Callable[[], bool]) -> None:
        while not ready():
            process = end.process
            if process is not None and process.poll() is not None:
                raise HostError(
                    f"{self.spec.kind.value} on {end.host.name} ({end.where}) exited "
                    f"(status {process.poll()}): {_last_words(end.text())}"
                )
            if time.monotonic() > deadline:
                raise HostError(
                    f"{self.spec.kind.value} on {end.host.name} ({end.where}) was not up "
                    f"after {READY_SECONDS:.0f} s: {_last_words(end.text())}"
                )
            time.sleep(_POLL)

    def _prove(self) -> None:
        """One ping from the client to the far end's tunnel address: keys, addresses and
        handshake all work before a test relies on them."""
        deadline = time.monotonic() + READY_SECONDS
        argv = ["ping", "-c", "1", "-W", "1", FAR_ADDRESS]
        while self.near.host.run(argv, timeout=15.0).returncode != 0:
            if time.monotonic() > deadline:
                raise HostError(
                    f"no ping through the {self.spec.kind.value} tunnel from "
                    f"{self.near.host.name} to {FAR_ADDRESS} in {READY_SECONDS:.0f} s",
                    hint="a firewall on the far end may drop the tunnel's port "
                    f"({_port(self.spec)}) or the traffic inside it",
                )

    # -- down ------------------------------------------------------------------------

    def down(self) -> None:
        """Restore each end's journal row: the undo stops its daemon (TERM, then KILL)
        and removes the device, socket and directory, as recovery would after a crash.
        Never raises: what could not be removed stays journaled, said in `problems`."""
        from wirespeed.tune.apply import restore_session

        with deferred_signals():
            for end in self.ends:
                if end.session is None:
                    continue
                try:
                    restore_session(end.host, self.journal, end.session)
                except (WirespeedError, OSError, TimeoutError) as error:
                    said = error.message if isinstance(error, WirespeedError) else str(error)
                    self.problems.append(f"{end.host.name}: {said}")

    # -- what the report says --------------------------------------------------------

    def daemons_by_pid(self) -> dict[int, str]:
        """pid -> "openvpn on the DUT" (the sampler's pids are the host's own)."""
        program = "openvpn" if self.spec.kind is TunnelKind.OPENVPN else "wireguard-go"
        return {
            end.process.pid: f"{program} on the {end.where}"
            for end in self.ends
            if end.process is not None
        }

    def findings(self) -> list[Finding]:
        found = [
            Finding(FindingKind.TUNNEL, describe_mtus(self.spec, self.link_mtu, self.far.where))
        ]
        found.append(
            Finding(
                FindingKind.TUNNEL,
                f"tunnel addresses: {NEAR_ADDRESS} on the {self.near.where} "
                f"({self.near.host.name}), {FAR_ADDRESS} on the {self.far.where} "
                f"({self.far.host.name}), reached at {self.far_outer}",
            )
        )
        if self.spec.kind is TunnelKind.WIREGUARD:
            for end in (self.near, self.far):
                how = (
                    "in the kernel (its wireguard module)"
                    if end.kernel
                    else "in userspace (wireguard-go): no wireguard kernel module there"
                )
                found.append(Finding(FindingKind.TUNNEL, f"WireGuard on the {end.where} ran {how}"))
            return found
        found += openvpn_findings({end.where: end.text() for end in (self.near, self.far)})
        return found


def _port(spec: TunnelSpec) -> str:
    if spec.kind is TunnelKind.OPENVPN:
        return f"{spec.proto.value} {openvpn.PORT}"
    return f"udp {wireguard.PORT}"


def _check(host: Host, argv: Sequence[str]) -> Completed:
    done = host.run(argv, timeout=30.0)
    if done.returncode != 0:
        raise HostError(
            f"{' '.join(argv[:4])} failed on {host.name}: "
            f"{done.stderr.strip() or done.stdout.strip()}"
        )
    return done


def _local_run(argv: Sequence[str]) -> str:
    from wirespeed.hosts.local import LocalHost

    done = LocalHost(name="this machine").run(argv, timeout=30.0)
    if done.returncode != 0:
        raise HostError(f"{argv[0]} failed on this machine: {done.stderr.strip()}")
    return done.stdout


def _put(host: Host, directory: str, files: dict[str, str]) -> None:
    """The end's directory made and key files put in it, their text through the
    session's stdin (an SSH device) or written directly (this machine): never on a
    command line."""
    from wirespeed.hosts.ssh import SshHost
    from wirespeed.hosts.ssh_scripts import quote

    if not isinstance(host, SshHost):
        _check(host, ["mkdir", "-m", "700", directory])
        for path, text in files.items():
            host.write_file(path, text)
        return
    script = [f"mkdir -m 700 {quote(directory)} || exit 1", "umask 077"]
    for path, text in files.items():
        marker = f"WIRESPEED_{secrets.token_hex(8)}"
        script.append(f"cat > {quote(path)} <<'{marker}'\n{text.rstrip()}\n{marker}")
    host.command("\n".join(script) + "\n")


def _last_words(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return " / ".join(lines[-3:]) if lines else "no output"


@contextlib.contextmanager
def host_tunnel(
    spec: TunnelSpec,
    near: HostTunnelEnd,
    far: HostTunnelEnd,
    *,
    far_outer: str,
    link_mtu: int,
    journal: Journal,
) -> Iterator[HostTunnel]:
    """The tunnel up between the two hosts for the block; down after it whatever happens."""
    tunnel = HostTunnel(spec, near, far, far_outer, link_mtu, journal)
    try:
        tunnel.up()
        yield tunnel
    finally:
        tunnel.down()
