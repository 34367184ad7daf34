"""One SSH connection to a device, used for one command at a time.

Older dropbear breaks when one connection carries several sessions at once
(mkj/dropbear#321), and small routers accept few connections per source. So a device gets
one connection, and every command opens a session, runs, and closes it before the next
starts (a lock; `max_sessions` > 1 lifts it for servers known to cope).

Who you are and who they are, as OpenSSH users expect:
- `~/.ssh/config` aliases: HostName, User, Port, IdentityFile, UserKnownHostsFile,
  StrictHostKeyChecking (accept-new), ProxyCommand and ProxyJump are honoured; a
  ProxyJump host is logged in to as strictly as the device, and the device's SSH runs
  inside a direct-tcpip channel from it (`ssh -W %h:%p jump`).
- Keys from the agent (SSH_AUTH_SOCK), then the IdentityFiles (or ~/.ssh/id_*), then a
  password from WIRESPEED_SSH_PASSWORD if set (never stored, never printed), then "none"
  (an OpenWrt root without a password).
- Host keys are checked strictly against known_hosts. An unknown key fails with its
  fingerprint and what to do; trust on first use is an explicit opt-in (accept_new),
  which appends the key to the user's known_hosts as `ssh -o StrictHostKeyChecking=
  accept-new` would. A changed key always fails.

A lost connection is re-established on the next command (a few attempts, each bounded by
the connect timeout); a device that stays unreachable fails fast for a short while after,
so a trial's cleanup does not wait out one timeout per command.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import logging
import os
import socket
import threading
import time
from typing import TYPE_CHECKING

from wirespeed.hosts.ssh_channel import ChannelLost, ExecResult, run_channel
from wirespeed.hosts.ssh_destination import Destination, SshError, SshSettings, resolve

if TYPE_CHECKING:
    import paramiko

# The settings and resolve are written in ssh_destination.py; they stay importable from
# here too, where the runner, the lab, soak, tune and the card import them.
__all__ = [
    "PASSWORD_VARIABLE",
    "UNREACHABLE_COOLDOWN",
    "SshConnection",
    "SshSettings",
    "fingerprint",
    "resolve",
]


# paramiko logs a traceback at ERROR when a device resets or freezes mid-handshake; with
# no logging configured Python would print it on stderr. The failure reaches the user as
# an SshError with a message instead.
logging.getLogger("paramiko").addHandler(logging.NullHandler())

PASSWORD_VARIABLE = "WIRESPEED_SSH_PASSWORD"  # noqa: S105 (a name, not a password)
# How long a device that could not be reached is not tried again: cleanup after a failed
# trial issues several commands, each of which would otherwise wait out a timeout.
UNREACHABLE_COOLDOWN = 5.0
_RECONNECT_ATTEMPTS = 3
_RECONNECT_PAUSE = 0.5


def fingerprint(key: paramiko.PKey) -> str:
    """SHA256:... as OpenSSH prints it."""
    digest = hashlib.sha256(key.asbytes()).digest()
    return "SHA256:" + base64.b64encode(digest).decode().rstrip("=")


class SshConnection:
    """One connection to one device; see the module docstring."""

    def __init__(self, destination: Destination, settings: SshSettings) -> None:
        self.destination = destination
        self._settings = settings
        self._transport: paramiko.Transport | None = None
        self._sessions = threading.BoundedSemaphore(max(1, settings.max_sessions))
        self._connect_lock = threading.Lock()
        self._unreachable: tuple[float, SshError] | None = None
        self.reconnects = 0  # connections re-established after a loss
        self._connected_once = False
        self._closed = False
        # The ProxyJump host's own connection, kept for as long as this one: each
        # (re)connection here is a new direct-tcpip channel through it.
        self._jump = SshConnection(destination.jump, settings) if destination.jump else None

    # -- connecting ---------------------------------------------------------------------

    def connect(self) -> None:
        """Connect and log in now (a run checks every device before it starts)."""
        self._ensure(attempts=1)

    @property
    def connected(self) -> bool:
        return self._transport is not None and self._transport.is_active()

    def _ensure(
        self, attempts: int = _RECONNECT_ATTEMPTS, *, keep_permanent: bool = False
    ) -> paramiko.Transport:
        with self._connect_lock:
            if self._closed:
                raise SshError(f"the connection to {self.destination} is closed")
            transport = self._transport
            if transport is not None and transport.is_active():
                return transport
            if self._unreachable is not None:
                since, error = self._unreachable
                if time.monotonic() - since < UNREACHABLE_COOLDOWN:
                    raise error
            # A loss seen during a command already dropped the transport: count it too.
            had_one = transport is not None or self._connected_once
            self._drop()
            last: SshError | None = None
            for attempt in range(attempts):
                if attempt:
                    time.sleep(_RECONNECT_PAUSE * attempt)
                try:
                    self._transport = self._open()
                except _Permanent as permanent:
                    if keep_permanent:
                        raise
                    raise permanent.error from None
                except SshError as error:
                    last = error
                    continue
                self._unreachable = None
                if had_one:
                    self.reconnects += 1
                self._connected_once = True
                return self._transport
            assert last is not None
            self._unreachable = (time.monotonic(), last)
            raise last

    def _open(self) -> paramiko.Transport:
        import paramiko

        where = str(self.destination)
        sock = self._socket()
        transport: paramiko.Transport | None = None
        try:
            transport = paramiko.Transport(sock)
            self._prefer_known_key_types(transport)
            transport.start_client(timeout=self._settings.connect_timeout)
            self._check_host_key(transport)
            self._authenticate(transport)
        except BaseException as error:
            # Closing the transport stops its thread before the socket goes; closing the
            # socket under it makes paramiko print "Socket exception" on stderr.
            with contextlib.suppress(Exception):
                if transport is not None:
                    transport.close()
                else:
                    sock.close()
            if isinstance(error, paramiko.SSHException | OSError | EOFError):
                raise SshError(
                    f"SSH with {where} failed: {error or type(error).__name__}"
                ) from None
            raise
        transport.set_keepalive(5)
        return transport

    def _socket(self) -> socket.socket:
        destination = self.destination
        timeout = self._settings.connect_timeout
        where = str(destination)
        if self._jump is not None:
            return self._through_jump(self._jump)
        if destination.proxy_command is not None:
            import paramiko

            try:
                return paramiko.ProxyCommand(destination.proxy_command)  # type: ignore[return-value]
            except paramiko.SSHException as error:
                raise SshError(f"ProxyCommand for {where} failed: {error}") from None
        try:
            if self._settings.socket_factory is not None:
                sock = self._settings.socket_factory(
                    destination.hostname, destination.port, timeout
                )
            else:
                sock = socket.create_connection((destination.hostname, destination.port), timeout)
        except TimeoutError:
            raise SshError(
                f"cannot reach {where}: no answer within {timeout:.0f} s",
                hint="is the device up, and its address and SSH port right?",
            ) from None
        except ConnectionRefusedError:
            raise SshError(
                f"cannot reach {where}: connection refused",
                hint="the device answers but runs no SSH server on that port "
                "(OpenWrt: /etc/init.d/dropbear start)",
            ) from None
        except OSError as error:
            raise SshError(f"cannot reach {where}: {error.strerror or error}") from None
        sock.settimeout(None)
        # Commands are many small packets, each waiting on the last's answer: without
        # TCP_NODELAY, Nagle's algorithm and delayed ACKs add ~40 ms to every one.
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return sock

    def _through_jump(self, jump: SshConnection) -> socket.socket:
        """A direct-tcpip channel from the ProxyJump host to this device, as
        `ssh -W host:port jump` opens: the device's SSH runs inside it, end to end, and
        its host key is checked here as on a direct connection."""
        import paramiko

        destination = self.destination
        where = str(destination)
        try:
            transport = jump._ensure(attempts=1, keep_permanent=True)
        except _Permanent as permanent:
            raise _Permanent(_through(permanent.error, where)) from None
        except SshError as error:
            raise _through(error, where) from None
        try:
            channel = transport.open_channel(
                "direct-tcpip",
                (destination.hostname, destination.port),
                ("127.0.0.1", 0),
                timeout=self._settings.connect_timeout,
            )
        except paramiko.ChannelException as error:
            raise SshError(
                f"cannot reach {where}: the ProxyJump host {jump.destination} could not "
                f"connect to it ({error.text})",
                hint="is the device up, and its address and SSH port right as the jump "
                "host sees them? (dropbear -j and OpenSSH's AllowTcpForwarding no refuse "
                "every forwarding)",
            ) from None
        except (paramiko.SSHException, OSError, EOFError) as error:
            jump._lost(transport)
            raise SshError(
                f"cannot reach {where}: lost the connection to the ProxyJump host "
                f"{jump.destination}: {error or type(error).__name__}"
            ) from None
        return channel  # type: ignore[return-value]  # paramiko takes a socket-like object

    def _known(self) -> paramiko.HostKeys:
        import paramiko
        from paramiko.hostkeys import InvalidHostKey

        keys = paramiko.HostKeys()
        for path in self.destination.known_hosts:
            if path.is_file():
                try:
                    keys.load(str(path))
                except InvalidHostKey as error:  # not an SSHException: it would escape
                    raise SshError(
                        f"cannot read {path}: wirespeed does not understand the line "
                        f"{error.line!r}",
                        hint="fix or remove that line (@cert-authority and @revoked are not "
                        "supported), or name another file with UserKnownHostsFile",
                    ) from None
                except (OSError, paramiko.SSHException) as error:
                    raise SshError(f"cannot read {path}: {error}") from None
        return keys

    def _prefer_known_key_types(self, transport: paramiko.Transport) -> None:
        # Ask for a key type known_hosts has, as OpenSSH does; else the server's first
        # choice may be a type we hold no entry for, which would look like a new host.
        entry = self._known().lookup(self.destination.known_hosts_name)
        if not entry:
            return
        options = transport.get_security_options()
        offered = list(options.key_types)
        known = [k for k in offered if k in entry]
        options.key_types = known + [k for k in offered if k not in known]

    def _check_host_key(self, transport: paramiko.Transport) -> None:
        key = transport.get_remote_server_key()
        name = self.destination.known_hosts_name
        entry = self._known().lookup(name)
        where = str(self.destination)
        shown = f"{key.get_name()} {fingerprint(key)}"
        files = ", ".join(str(p) for p in self.destination.known_hosts)
        if entry and key.get_name() in entry:
            if entry[key.get_name()] == key:
                return
            raise _Permanent(
                SshError(
                    f"the host key of {where} has CHANGED: it is now {shown}, not the one "
                    f"in {files}. Someone may be intercepting the connection, or the "
                    "device was reinstalled",
                    hint=f"if you know the device was reset, remove the old key with "
                    f"`ssh-keygen -R '{name}'` and connect again; otherwise do not",
                )
            )
        if entry:
            raise _Permanent(
                SshError(
                    f"{where} offered a {key.get_name()} host key ({fingerprint(key)}); "
                    f"{files} knows it only by {', '.join(entry.keys())}",
                    hint="check the key on the device and add it to known_hosts",
                )
            )
        if not self.destination.accept_new:
            raise _Permanent(
                SshError(
                    f"the host key of {where} is unknown: {shown} is not in {files}",
                    hint="check the fingerprint on the device (dropbearkey -y -f "
                    "/etc/dropbear/dropbear_ed25519_host_key), then log in once with "
                    f"`ssh -p {self.destination.port} {self.destination.user}@"
                    f"{self.destination.hostname}` to record it, or pass "
                    "--accept-new-host-key to trust a key seen for the first time",
                )
            )
        self._remember(name, key)

    def _remember(self, name: str, key: paramiko.PKey) -> None:
        path = self.destination.known_hosts[0]
        try:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            with open(path, "a", encoding="utf-8") as handle:
                os.chmod(path, 0o600)
                handle.write(f"{name} {key.get_name()} {key.get_base64()}\n")
        except OSError as error:
            raise _Permanent(SshError(f"cannot add the host key to {path}: {error}")) from None
        if self._settings.on_note is not None:
            self._settings.on_note(
                f"added the host key of {self.destination} ({key.get_name()} "
                f"{fingerprint(key)}) to {path}"
            )

    def _authenticate(self, transport: paramiko.Transport) -> None:
        import paramiko

        user = self.destination.user
        tried: list[str] = []
        for key in self._keys():
            try:
                transport.auth_publickey(user, key)
            except paramiko.AuthenticationException:
                tried.append(f"{key.get_name()} {fingerprint(key)}")
                continue
            if transport.is_authenticated():
                return
        password = os.environ.get(PASSWORD_VARIABLE)
        if password:
            with contextlib.suppress(paramiko.AuthenticationException):
                transport.auth_password(user, password)
                if transport.is_authenticated():
                    return
            tried.append(f"the password in {PASSWORD_VARIABLE}")
        with contextlib.suppress(paramiko.AuthenticationException, paramiko.SSHException):
            transport.auth_none(user)
            if transport.is_authenticated():
                return
        transport.close()
        raise _Permanent(
            SshError(
                f"{self.destination} refused every login: "
                + ("; ".join(tried) if tried else "no key was found to offer"),
                hint="add your public key to the device (OpenWrt: "
                "/etc/dropbear/authorized_keys), load it into ssh-agent, name it with "
                f"IdentityFile in ~/.ssh/config, or set {PASSWORD_VARIABLE}",
            )
        )

    def _keys(self) -> list[paramiko.PKey]:
        import paramiko

        keys: list[paramiko.PKey] = []
        if self._settings.use_agent and os.environ.get("SSH_AUTH_SOCK"):
            with contextlib.suppress(paramiko.SSHException, OSError):
                keys.extend(paramiko.Agent().get_keys())
        for path in self.destination.identities:
            if not path.is_file():
                continue
            try:
                keys.append(paramiko.PKey.from_path(str(path)))
            except (paramiko.SSHException, OSError, ValueError):
                continue  # encrypted without an agent, or not a key: the next one may do
        return keys

    # -- commands -----------------------------------------------------------------------

    def execute(
        self,
        command: str,
        *,
        stdin: bytes = b"",
        timeout: float = 30.0,
        retry: bool = True,
    ) -> ExecResult:
        """Run command in a session of its own; its stdin gets `stdin`, then EOF.

        retry=True: if the connection was lost before the command could start, reconnect
        and start it again (only for commands that are safe to repeat)."""
        import paramiko

        with self._sessions:
            for attempt in (1, 2):
                transport = self._ensure()
                try:
                    channel = transport.open_session(timeout=self._settings.connect_timeout)
                except (paramiko.SSHException, OSError, EOFError) as error:
                    self._lost(transport)
                    if retry and attempt == 1:
                        continue
                    raise SshError(f"lost the connection to {self.destination}: {error}") from None
                try:
                    return run_channel(channel, command, stdin, timeout, str(self.destination))
                except ChannelLost as lost:
                    self._lost(transport)
                    if retry and attempt == 1 and not lost.started:
                        continue
                    raise SshError(
                        f"lost the connection to {self.destination} during a command"
                    ) from None
        raise AssertionError("unreachable")

    def _lost(self, transport: paramiko.Transport) -> None:
        with self._connect_lock:
            if self._transport is transport:
                self._drop()

    def _drop(self) -> None:
        if self._transport is not None:
            with contextlib.suppress(Exception):
                self._transport.close()
            self._transport = None

    def close(self) -> None:
        with self._connect_lock:
            self._closed = True
            self._drop()
        if self._jump is not None:
            self._jump.close()


class _Permanent(Exception):
    """A failure that retrying cannot fix (host key, login): raised at once."""

    def __init__(self, error: SshError) -> None:
        super().__init__(error.message)
        self.error = error


def _through(error: SshError, where: str) -> SshError:
    """An error of the ProxyJump host's connection, said as the device's."""
    return SshError(f"cannot reach {where} through its ProxyJump host: {error.message}", error.hint)
