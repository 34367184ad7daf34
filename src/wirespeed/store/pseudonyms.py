"""What a bundle says of the people and machines it was measured on: their host names,
addresses, user names and SSH config paths replaced by stable pseudonyms (`wirespeed
export` without --keep-names; docs/sharing.md says what is replaced and what is not).

Every string of the runs is rewritten with one map, so that a name means the same
pseudonym wherever it stands (a plan's `ssh:`, a tool's argv, its output, the provenance)
and the runs still read, parse and compare as before. Pseudonyms are numbered in the
order they are first met, and look like what they replace (192.0.2.N for an IPv4
address, 2001:db8::N, 02:00:00:00:00:NN for a MAC, hostN, userN): rewriting runs that
were rewritten already changes nothing, which keeps a bundle's round trip (export,
import, export) byte-identical. Passwords in URLs are masked as the store masks them.
"""

from __future__ import annotations

import contextlib
import getpass
import ipaddress
import itertools
import os
import re
import socket
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from wirespeed.store.redaction import mask_passwords

# Words of wirespeed's own (roles, topologies, link names) and system accounts: not
# personal, and rewriting them would change what the runs say.
_NOT_PERSONAL = frozenset(
    {
        "root",
        "admin",
        "nobody",
        "localhost",
        "local",
        "lab",
        "client",
        "server",
        "dut",
        "router",
        "nat",
        "bridge",
        "endpoint",
        "default",
        "host",
        "user",
        "wan",
        "lan",
    }
)

_OCTET = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
_IPV4 = rf"(?<![\w.])(?:{_OCTET}\.){{3}}{_OCTET}(?![\w]|\.\d)"
_MAC = r"(?<![\w:])[0-9A-Fa-f]{2}(?::[0-9A-Fa-f]{2}){5}(?![\w:])"
_IPV6 = r"(?<![\w:.])(?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4}(?![\w:])"
# user@host, as in an SSH target or a mail address.
_USER_AT_HOST = re.compile(
    r"(?<![\w.+-])([A-Za-z_][\w.-]{0,63})@([A-Za-z0-9][\w.-]*[A-Za-z0-9]|\w)"
)
# `uname -a` as iperf3's system_info and tools' banners print it: "Linux NAME 6.1.0 ...".
_UNAME = re.compile(r"\bLinux ([A-Za-z0-9][\w.-]*) \d+\.\d+")
_HOME = re.compile(r"(?:/home/|/Users/)([\w.-]+)")
_SSH_CONFIG_OPTIONS = ("--ssh-config", "-F")
# What a pseudonym looks like, so that one met again keeps its number.
_PSEUDONYM = {"host": re.compile(r"host\d+"), "user": re.compile(r"user\d+")}
_SSH_CONFIG_PSEUDONYM = re.compile(r"ssh_config\d+")


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key in sorted(value):
            yield str(key)
            yield from _strings(value[key])
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


def _plan_targets(text: str) -> Iterator[tuple[str | None, str]]:
    """(user, host) of every `ssh:` and `address:` of a plan's text."""
    for match in re.finditer(r"(?m)\b(?:ssh|address):\s*[\"']?([^\s\"'#,}]+)", text):
        value = match[1]
        user, _, host = value.rpartition("@")
        host = host.rsplit(":", 1)[0] if host.count(":") == 1 else host
        yield (user or None), host.split("/")[0]


def _this_machine() -> tuple[set[str], set[str]]:
    """This machine's host names and the user exporting (and under sudo, who invoked it)."""
    hosts = {socket.gethostname(), socket.gethostname().split(".")[0]}
    users = {os.environ.get("SUDO_USER") or ""}
    with contextlib.suppress(KeyError, OSError):
        users.add(getpass.getuser())
    return hosts, users


class Pseudonyms:
    """The map from sensitive values to pseudonyms of one bundle's runs."""

    def __init__(self, runs: Iterable[Any]) -> None:
        runs = list(runs)
        hosts, users = _this_machine()
        configs: set[str] = set()
        for run in runs:
            for user, host in _plan_targets(str(run.get("plan_text") or "")):
                users.add(user or "")
                hosts.add(host)
            argv = [str(a) for a in run.get("argv") or ()]
            for option, value in itertools.pairwise(argv):
                if option in _SSH_CONFIG_OPTIONS:
                    configs.add(value)
            configs |= {a.split("=", 1)[1] for a in argv if a.startswith("--ssh-config=")}
            for facts in (run.get("provenance") or {}).get("hosts", {}).values():
                if isinstance(facts, dict) and facts.get("hostname"):
                    hosts.add(str(facts["hostname"]))
            for text in _strings(run):
                for match in _USER_AT_HOST.finditer(text):
                    users.add(match[1])
                    hosts.add(match[2])
                users |= set(_HOME.findall(text))
                hosts |= set(_UNAME.findall(text))
                hosts.update(_PSEUDONYM["host"].findall(text))
                users.update(_PSEUDONYM["user"].findall(text))
                configs |= set(_SSH_CONFIG_PSEUDONYM.findall(text))
        self._kind: dict[str, str] = {}
        for kind, names in (("user", users), ("host", hosts)):
            for name in names:
                if len(name) >= 2 and name.lower() not in _NOT_PERSONAL and not _is_ip(name):
                    self._kind.setdefault(name, kind)
        for path in configs:
            if path:
                self._kind[path] = "ssh_config"
        longest_first = sorted(self._kind, key=lambda n: (-len(n), n))
        parts = [f"(?P<mac>{_MAC})", f"(?P<ipv4>{_IPV4})", f"(?P<ipv6>{_IPV6})"]
        if longest_first:
            joined = "|".join(re.escape(n) for n in longest_first)
            parts.insert(0, rf"(?P<name>(?<![\w-])(?:{joined})(?![\w-]))")
        self._pattern = re.compile("|".join(parts))
        self._given: dict[tuple[str, str], str] = {}
        self._counts: dict[str, int] = {}

    def _next(self, kind: str, value: str, make: Callable[[int], str]) -> str:
        known = self._given.get((kind, value))
        if known is None:
            number = self._counts.get(kind, 0) + 1
            self._counts[kind] = number
            known = self._given[(kind, value)] = make(number)
        return known

    def _replace(self, match: re.Match[str]) -> str:
        text = match[0]
        if match["mac"] is not None:
            if text.lower() in ("00:00:00:00:00:00", "ff:ff:ff:ff:ff:ff"):
                return text
            return self._next(
                "mac", text.lower(), lambda n: f"02:00:00:00:{n >> 8:02x}:{n & 255:02x}"
            )
        if match["ipv4"] is not None:
            address = ipaddress.IPv4Address(text)
            if address.is_loopback or address.is_unspecified or _is_mask(address):
                return text
            return self._next("ipv4", text, _documentation_v4)
        if match["ipv6"] is not None:
            try:
                v6 = ipaddress.IPv6Address(text)
            except ValueError:
                return text
            if v6.is_loopback or v6.is_unspecified:
                return text
            return self._next("ipv6", v6.compressed, lambda n: f"2001:db8::{n:x}")
        kind = self._kind[text]
        return self._next(kind, text, lambda n: f"{kind}{n}")

    def text(self, value: str) -> str:
        return self._pattern.sub(self._replace, mask_passwords(value))

    def apply(self, value: Any) -> Any:
        """value (JSON) with every string and key rewritten, in the order _strings meets
        them (sorted keys), so that numbering does not depend on how a dict was built."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.text(str(k)): self.apply(value[k]) for k in sorted(value)}
        if isinstance(value, list | tuple):
            return [self.apply(v) for v in value]
        return value


def _is_mask(address: ipaddress.IPv4Address) -> bool:
    bits = int(address)
    inverted = ~bits & 0xFFFFFFFF
    return bits != 0 and (inverted & (inverted + 1)) == 0


def _documentation_v4(number: int) -> str:
    """192.0.2.N, then 203.0.113.N (RFC 5737), then 233.252.0.N: no real host's."""
    for prefix in ("192.0.2", "203.0.113", "233.252.0"):
        if number <= 254:
            return f"{prefix}.{number}"
        number -= 254
    return f"100.127.{number >> 8}.{number & 255}"


def pseudonymized(runs: list[Any]) -> list[Any]:
    """The runs (JSON) with their sensitive values replaced, one map for all."""
    names = Pseudonyms(runs)
    return [names.apply(run) for run in runs]
