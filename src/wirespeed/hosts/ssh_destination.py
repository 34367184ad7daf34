"""Who to reach and how: the settings every SSH connection shares, and a plan's target
resolved through ~/.ssh/config as OpenSSH would (HostName, User, Port, IdentityFile,
UserKnownHostsFile, StrictHostKeyChecking, ProxyCommand, ProxyJump)."""

from __future__ import annotations

import getpass
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from wirespeed.errors import HostError

if TYPE_CHECKING:
    from wirespeed.hosts.ssh_target import SshTarget

CONNECT_TIMEOUT = 5.0
_DEFAULT_IDENTITIES = ("id_ed25519", "id_ecdsa", "id_rsa")
# ProxyJump hosts between wirespeed and a device, at most; more is taken for a loop.
_MAX_JUMPS = 8

SocketFactory = Callable[[str, int, float], socket.socket]


class SshError(HostError):
    """Cannot reach, trust or log in to a device."""


@dataclass(frozen=True)
class SshSettings:
    """How to reach devices; the defaults are OpenSSH's."""

    config_path: Path | None = None  # None: ~/.ssh/config if it exists
    known_hosts: tuple[Path, ...] = ()  # () : config's UserKnownHostsFile or ~/.ssh/known_hosts
    identities: tuple[Path, ...] = ()  # tried after the agent, before the config's
    accept_new: bool = False  # trust a host key seen for the first time
    use_agent: bool = True
    connect_timeout: float = CONNECT_TIMEOUT
    max_sessions: int = 1
    # How to open the TCP connection; the lab's reaches into a network namespace.
    socket_factory: SocketFactory | None = field(default=None, compare=False)
    # Where notes go (a key added on first use); the CLI prints them.
    on_note: Callable[[str], None] | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Destination:
    """A target after ~/.ssh/config: where to connect and as whom."""

    alias: str
    hostname: str
    port: int
    user: str
    identities: tuple[Path, ...]
    known_hosts: tuple[Path, ...]
    accept_new: bool
    proxy_command: str | None  # its %h, %p, %r already filled in
    # The host to reach this one through (ProxyJump), itself maybe through another.
    jump: Destination | None = None

    @property
    def known_hosts_name(self) -> str:
        """How known_hosts names this host: `host`, or `[host]:port` off port 22."""
        return self.hostname if self.port == 22 else f"[{self.hostname}]:{self.port}"

    def __str__(self) -> str:
        host = f"[{self.hostname}]" if ":" in self.hostname else self.hostname
        return f"{self.user}@{host}:{self.port}"


def resolve(
    target: SshTarget,
    settings: SshSettings,
    *,
    _via: tuple[SshTarget, ...] | None = None,
    _hops: int = 0,
) -> Destination:
    """Apply ~/.ssh/config to a plan's target; explicit user and port win.

    _via: the hosts before this one in a ProxyJump chain (`a,b` reaches the target
    through b, and b through a), which replace this host's own ProxyJump and
    ProxyCommand as `ssh -J` does; None: the config's."""
    import paramiko

    from wirespeed.hosts import ssh_config

    home = Path.home() / ".ssh"
    config_path = settings.config_path or home / "config"
    options: dict[str, object] = {}
    if config_path.is_file():
        try:
            options = ssh_config.lookup(config_path, target.host)
        except (OSError, paramiko.ConfigParseError) as error:
            raise SshError(f"cannot read {config_path}: {error}") from None
    hostname = str(options.get("hostname", target.host))
    port = target.port
    if port is None:
        try:
            port = int(str(options.get("port", 22)))
        except ValueError:
            raise SshError(f"{config_path}: Port {options['port']!r} is not a number") from None
    user = target.user or str(options.get("user", "") or getpass.getuser())
    identities = settings.identities + tuple(
        Path(str(p)).expanduser() for p in _as_list(options.get("identityfile"))
    )
    if not identities:
        identities = tuple(home / name for name in _DEFAULT_IDENTITIES)
    known = settings.known_hosts or tuple(
        Path(str(p)).expanduser()
        for p in _as_list(options.get("userknownhostsfile"))
        for p in str(p).split()
    )
    if not known:
        known = (home / "known_hosts",)
    strict = str(options.get("stricthostkeychecking", "yes")).lower()

    def expand(option: str, value: str) -> str:
        # After the target's own user and port have won: `root@dut:2222` is %p 2222.
        try:
            return ssh_config.expand(
                value, option=option, hostname=hostname, port=port, user=user, alias=target.host
            )
        except ValueError as error:
            raise SshError(f"{config_path}: {error}") from None

    proxy_command: str | None = None
    chain: tuple[SshTarget, ...] = ()
    if _via is not None:
        chain = _via
    else:
        # Whichever of the two was given first wins, and `none` means a direct
        # connection (ssh_config(5)).
        first = next((key for key in options if key in ("proxyjump", "proxycommand")), None)
        value = options.get(first) if first else None
        if first == "proxycommand" and value is not None and str(value) != "none":
            proxy_command = expand("ProxyCommand", str(value))
        elif first == "proxyjump" and str(value).lower() != "none":
            try:
                chain = ssh_config.jump_hosts(expand("ProxyJump", str(value)))
            except ValueError as error:
                raise SshError(f"{config_path}: ProxyJump of {target.host}: {error}") from None
    jump: Destination | None = None
    if chain:
        if _hops + len(chain) > _MAX_JUMPS:
            raise SshError(
                f"{target.host} is reached through more than {_MAX_JUMPS} ProxyJump hosts "
                f"in {config_path}: is there a loop?",
                hint="a `Host *` block with ProxyJump needs `ProxyJump none` for the jump "
                "host itself, before it",
            )
        jump = resolve(chain[-1], settings, _via=chain[:-1] or None, _hops=_hops + len(chain))
    return Destination(
        alias=target.host,
        hostname=hostname,
        port=port,
        user=user,
        identities=identities,
        known_hosts=known,
        accept_new=settings.accept_new or strict in ("accept-new", "no", "off"),
        proxy_command=proxy_command,
        jump=jump,
    )


def _as_list(value: object) -> list[object]:
    if value is None:
        return []
    return list(value) if isinstance(value, list | tuple) else [value]
