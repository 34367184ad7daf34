"""What tuning may touch, and with what values: the only door to a host's knobs.

A target is one of (nothing else is ever written):

    /proc/irq/N/smp_affinity                  hex CPU mask
    /sys/class/net/IF/queues/rx-N/rps_cpus    hex CPU mask
    /sys/class/net/IF/queues/tx-N/xps_cpus    hex CPU mask
    /sys/class/net/IF/mtu                     68..65535
    ethtool:IF:FEATURE                        on|off, set with `ethtool -K IF FEATURE on|off`
    /sys/devices/system/cpu/cpuN/online       0|1, N >= 1 (cpu0 is never taken offline)
    /sys/devices/system/cpu/cpufreq/policyN/scaling_governor   a governor's name
    /sys/devices/system/cpu/cpufreq/policyN/scaling_max_freq   kHz
    port:IF                                   a port moved into a namespace for a run: its
                                              addresses, routes, MTU and up/down state
                                              (tune/port_state.py) as JSON
    tunnel:DEV                                one end of a VPN tunnel between real hosts:
                                              its daemon, device, socket and key directory
                                              (tune/tunnel_undo.py) as JSON
    frame:TOKEN                               tcpreplay's frame file on a sending host,
                                              /tmp/wirespeed-frame-TOKEN.pcap (12 hex;
                                              tune/frame_undo.py): `absent` before

Interface names and values come from devices, plans and users, so they are checked
against the kernel's own rules before they get near a path or an argv: a name like
`eth0/../../x` must not become a path outside /sys/class/net, and `$(reboot)` must never
reach a shell (none is used; this is the second fence).
"""

from __future__ import annotations

import enum
import json
import re
from dataclasses import dataclass

from wirespeed.tune.refused import RefusedError, check_interface

__all__ = [
    "FEATURE_ALIASES",
    "MTU_MAX",
    "MTU_MIN",
    "Kind",
    "RefusedError",
    "Target",
    "check_control_interface",
    "check_interface",
    "check_value",
    "default_route_interface",
    "offload_feature",
    "offload_target",
    "parse_offloads",
    "parse_target",
]

_MASK = re.compile(r"[0-9a-f,]+")
_FEATURE = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")
_IFNAME_PART = r"(?P<iface>[^/]+)"
_PATTERNS = {
    "smp_affinity": re.compile(r"/proc/irq/(?P<irq>[0-9]{1,6})/smp_affinity"),
    "rps_cpus": re.compile(
        rf"/sys/class/net/{_IFNAME_PART}/queues/rx-(?P<queue>[0-9]{{1,5}})/rps_cpus"
    ),
    "xps_cpus": re.compile(
        rf"/sys/class/net/{_IFNAME_PART}/queues/tx-(?P<queue>[0-9]{{1,5}})/xps_cpus"
    ),
    "mtu": re.compile(rf"/sys/class/net/{_IFNAME_PART}/mtu"),
    "offload": re.compile(r"ethtool:(?P<iface>[^:/]+(?::[^:/]+)*?):(?P<feature>[a-z0-9-]+)"),
    "port": re.compile(r"port:(?P<iface>[^/]+)"),
    "tunnel": re.compile(r"tunnel:(?P<iface>[^/]+)"),
    "frame": re.compile(r"frame:[0-9a-f]{12}"),
    "cpu_online": re.compile(r"/sys/devices/system/cpu/cpu(?P<cpu>0|[1-9][0-9]{0,3})/online"),
    "scaling_governor": re.compile(
        r"/sys/devices/system/cpu/cpufreq/policy(?P<policy>0|[1-9][0-9]{0,3})/scaling_governor"
    ),
    "scaling_max_freq": re.compile(
        r"/sys/devices/system/cpu/cpufreq/policy(?P<policy>0|[1-9][0-9]{0,3})/scaling_max_freq"
    ),
}
# CPUFREQ_NAME_LEN is 16 with the NUL; governors are lower-case words (schedutil, ondemand).
_GOVERNOR = re.compile(r"[a-z0-9_-]{1,15}")
_KHZ = re.compile(r"[1-9][0-9]{0,9}")
MTU_MIN, MTU_MAX = 68, 65535

# ethtool -k prints long names; -K takes both. The journal keeps the long name, so a
# feature is read back and restored under the name it was recorded with.
FEATURE_ALIASES = {
    "rx": "rx-checksumming",
    "tx": "tx-checksumming",
    "sg": "scatter-gather",
    "tso": "tcp-segmentation-offload",
    "ufo": "udp-fragmentation-offload",
    "gso": "generic-segmentation-offload",
    "gro": "generic-receive-offload",
    "lro": "large-receive-offload",
    "rxvlan": "rx-vlan-offload",
    "txvlan": "tx-vlan-offload",
    "ntuple": "ntuple-filters",
    "rxhash": "receive-hashing",
}


class Kind(enum.Enum):
    SMP_AFFINITY = "smp_affinity"
    RPS = "rps_cpus"
    XPS = "xps_cpus"
    MTU = "mtu"
    OFFLOAD = "offload"
    CPU_ONLINE = "cpu_online"
    GOVERNOR = "scaling_governor"
    MAX_FREQ = "scaling_max_freq"
    PORT = "port"
    TUNNEL = "tunnel"
    FRAME = "frame"


@dataclass(frozen=True)
class Target:
    kind: Kind
    path: str  # as given; the journal's key
    interface: str | None = None
    irq: int | None = None
    feature: str | None = None

    @property
    def is_file(self) -> bool:
        return self.kind not in (Kind.OFFLOAD, Kind.PORT, Kind.TUNNEL, Kind.FRAME)

    @property
    def touches_link(self) -> bool:
        """MTU and offloads can cut a connection that runs over the interface."""
        return self.kind in (Kind.MTU, Kind.OFFLOAD)


def parse_target(path: str) -> Target:
    for kind_name, pattern in _PATTERNS.items():
        match = pattern.fullmatch(path)
        if match is None:
            continue
        kind = Kind(kind_name)
        groups = match.groupdict()
        iface = check_interface(groups["iface"]) if groups.get("iface") else None
        feature = groups.get("feature")
        if feature is not None:
            feature = offload_feature(feature)
        irq = int(groups["irq"]) if groups.get("irq") else None
        if kind is Kind.CPU_ONLINE and groups["cpu"] == "0":
            # Most kernels cannot take the boot CPU offline, and those that can lose the
            # CPU that timekeeping and many IRQs sit on.
            raise RefusedError(
                f"refused target {path!r}: cpu0 is never taken offline",
                hint="keep cpu0 in a variant's cpus_online",
            )
        return Target(kind, path, interface=iface, irq=irq, feature=feature)
    raise RefusedError(
        f"refused target {path!r}: not one of the knobs tuning may change",
        hint="smp_affinity, rps_cpus, xps_cpus, mtu, ethtool:IF:FEATURE, cpuN/online, "
        "scaling_governor, scaling_max_freq, port:IF, tunnel:DEV or frame:TOKEN "
        "(see docs/tuning.md)",
    )


def offload_target(interface: str, feature: str) -> str:
    return f"ethtool:{check_interface(interface)}:{offload_feature(feature)}"


def offload_feature(feature: str) -> str:
    if not _FEATURE.fullmatch(feature):
        raise RefusedError(f"refused offload feature {feature!r}")
    return FEATURE_ALIASES.get(feature, feature)


def check_value(target: Target, value: str) -> str:
    """The value as it will be written (one trailing newline allowed), or RefusedError."""
    bare = value[:-1] if value.endswith("\n") else value
    if target.kind in (Kind.SMP_AFFINITY, Kind.RPS, Kind.XPS):
        if not _MASK.fullmatch(bare) or bare.startswith(",") or ",," in bare:
            raise RefusedError(
                f"refused mask {value!r} for {target.path}", hint="a hex CPU mask like 10 or 3f"
            )
    elif target.kind is Kind.MTU:
        if not bare.isascii() or not bare.isdigit() or not MTU_MIN <= int(bare) <= MTU_MAX:
            raise RefusedError(f"refused MTU {value!r}", hint=f"an integer {MTU_MIN}..{MTU_MAX}")
    elif target.kind is Kind.CPU_ONLINE:
        if bare not in ("0", "1"):
            raise RefusedError(f"refused value {value!r} for {target.path}", hint="0 or 1")
    elif target.kind is Kind.GOVERNOR:
        if not _GOVERNOR.fullmatch(bare):
            raise RefusedError(
                f"refused governor {value!r}", hint="a cpufreq governor's name, such as performance"
            )
    elif target.kind is Kind.MAX_FREQ:
        if not _KHZ.fullmatch(bare):
            raise RefusedError(f"refused frequency {value!r}", hint="a whole number of kHz")
    elif target.kind is Kind.PORT:
        from wirespeed.tune.port_state import PortState

        if PortState.from_json(bare).interface != target.interface:
            raise RefusedError(f"refused state of another port for {target.path}")
    elif target.kind is Kind.TUNNEL:
        from wirespeed.tune.tunnel_undo import TunnelEnd

        if bare != "up" and TunnelEnd.from_json(bare).dev != target.interface:
            raise RefusedError(f"refused record of another tunnel for {target.path}")
    elif target.kind is Kind.FRAME:
        from wirespeed.tune.frame_undo import ABSENT

        if bare != ABSENT:
            raise RefusedError(f"refused value {value!r} for {target.path}", hint=ABSENT)
    elif bare not in ("on", "off"):
        raise RefusedError(f"refused offload state {value!r}", hint="on or off")
    return value


def check_control_interface(
    targets: list[Target], control_interface: str | None, force: bool
) -> None:
    """Refuse MTU and offload changes on the interface wirespeed reaches the host through:
    a wrong MTU there cuts the connection that would restore it. Affinity and RPS only
    move work between cores and stay allowed."""
    if force or control_interface is None:
        return
    for target in targets:
        if target.touches_link and target.interface == control_interface:
            raise RefusedError(
                f"refused {target.path}: {control_interface} carries the control connection "
                "(the default route), and a bad MTU or offload there would cut it",
                hint="use --force if you have another way in",
            )


def default_route_interface(ip_route_json: str) -> str | None:
    """The interface of the default route, from `ip -j route show default`."""
    try:
        routes = json.loads(ip_route_json or "[]")
    except json.JSONDecodeError:
        return None
    for route in routes if isinstance(routes, list) else ():
        if isinstance(route, dict) and isinstance(route.get("dev"), str):
            return str(route["dev"])
    return None


def parse_offloads(ethtool_k: str) -> dict[str, tuple[str, bool]]:
    """`ethtool -k IF` -> feature -> (on|off, fixed)."""
    found: dict[str, tuple[str, bool]] = {}
    for line in ethtool_k.splitlines():
        name, colon, rest = line.strip().partition(":")
        words = rest.split()
        if not colon or not words or words[0] not in ("on", "off"):
            continue
        found[name.strip()] = (words[0], "[fixed]" in rest)
    return found
