"""Reading ~/.ssh/config as OpenSSH does where paramiko's reading differs.

paramiko fills %h, %p and %r of ProxyCommand and ProxyJump from the config alone, so
`root@dut:2222` got the config's `Port 22` in `ssh -W %h:%p jump`. Here those tokens are
left alone while reading and filled in once the target's own user and port have won
(`expand`). ProxyJump's hosts are read as OpenSSH reads them (`jump_hosts`).

Imported only when a device is resolved: paramiko costs time to import.
"""

from __future__ import annotations

import re
from pathlib import Path

import paramiko

from wirespeed.hosts.ssh_target import SshTarget

# Keys whose %-tokens depend on the target's user and port, which the config alone
# does not know.
_LATE_KEYS = ("proxycommand", "proxyjump")
_LATE_TOKENS = ("%h", "%p", "%r", "%n")
_TOKEN = re.compile(r"%(.)")


class _LateTokensConfig(paramiko.SSHConfig):
    """paramiko's reader, but %h, %p, %r and %n of ProxyCommand and ProxyJump are kept
    for `expand` (paramiko would fill them from the config's Port and User)."""

    def _allowed_tokens(self, key: str) -> list[str]:
        # A private method, not in the type stubs; test_ssh_resolve fails if it goes.
        tokens: list[str] = super()._allowed_tokens(key)  # type: ignore[misc]
        if key in _LATE_KEYS:
            return [token for token in tokens if token not in _LATE_TOKENS]
        return tokens


def lookup(path: Path, host: str) -> dict[str, object]:
    """The options of ~/.ssh/config for `host`, in the order they were first given (the
    order decides between ProxyJump and ProxyCommand, as in OpenSSH)."""
    return dict(_LateTokensConfig.from_path(str(path)).lookup(host))


def expand(value: str, *, option: str, hostname: str, port: int, user: str, alias: str) -> str:
    """Fill in %h %p %r %n %% as OpenSSH does for ProxyCommand and ProxyJump, with the
    destination's final host name, port and user."""
    values = {"h": hostname, "p": str(port), "r": user, "n": alias, "%": "%"}

    def one(match: re.Match[str]) -> str:
        letter = match[1]
        if letter not in values:
            raise ValueError(
                f"{option} {value!r}: %{letter} is not a token wirespeed knows "
                "(%h, %p, %r, %n and %% are)"
            )
        return values[letter]

    return _TOKEN.sub(one, value)


def jump_hosts(value: str) -> tuple[SshTarget, ...]:
    """ProxyJump's `[user@]host[:port]` or `ssh://[user@]host[:port]`, comma-separated,
    first hop first. ValueError says which one is wrong."""
    hops: list[SshTarget] = []
    for part in value.split(","):
        text = part.strip()
        text = text.removeprefix("ssh://").rstrip("/")
        if not text:
            raise ValueError(f"ProxyJump {value!r} names an empty host")
        hops.append(SshTarget.parse(text))
    return tuple(hops)
