"""The plan file as pydantic models: keys, types, units and ranges, nothing more.

Each entry (a host, a path, a test) is its own model and is validated on its own, so one
bad entry does not hide the problems of the others. Cross-references (a path's hosts, a
test's paths) and what cannot work on the wire are checked afterwards (checks.py).

Every key is optional in the models of tests and defaults: None means "not set here",
and the effective value is the test's, else the defaults', else the built-in one
(resolve.py). A few keys reject an explicit null because nothing sensible could follow.
"""

from __future__ import annotations

import ipaddress
import math
import re
import unicodedata
from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainValidator,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from wirespeed.hosts.ssh_target import SshTarget, is_host
from wirespeed.lab.links import parse_link
from wirespeed.model import (
    MAX_QUEUE_SECONDS,
    MAX_RING,
    Direction,
    Probes,
    Proto,
    Tool,
    Topology,
    TunnelEnds,
    TunnelKind,
)
from wirespeed.plan.plan import ALL_POLICIES, RPS_SPREAD
from wirespeed.plan.problems import shown
from wirespeed.trial_kind import tools
from wirespeed.units import parse_delay, parse_rate, parse_size

# Ids and names end up in trial keys ("4/WAN/default/1"), file names and report columns.
# Matched with fullmatch: `$` would also match before a final newline ("4\n").
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*")
_MASK = re.compile(r"[0-9a-f]+(?:,[0-9a-f]+)*")
_FEATURE = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")
_GOVERNOR = re.compile(r"[a-z0-9_-]{1,15}")  # CPUFREQ_NAME_LEN is 16 with the NUL
_FREQUENCY = re.compile(r"(?P<number>[0-9]+(?:\.[0-9]+)?)\s*(?P<unit>ghz|mhz|khz)")
_FREQUENCY_UNITS = {"ghz": 1_000_000, "mhz": 1_000, "khz": 1}
_POLICY = re.compile(r"(?:policy)?(?P<first>0|[1-9][0-9]{0,3})")
MAX_CPU = 4095  # NR_CPUS tops out at 8192 on arm64; a number above is a typo

MAX_RATE = 10**13  # 10 Tbit/s: anything above is a typo, not a link
MAX_SIZE = 2**31 - 1  # iperf keeps sizes in a C int
MAX_SECONDS = 86_400  # a day: iperf3 refuses longer tests (its MAX_TIME)
MAX_REPETITIONS = 1000
MAX_PPS = 10**10  # far above any device: a number above is a typo


def _lower(value: object) -> object:
    return value.strip().lower() if isinstance(value, str) else value


def _finite_number_or_text(value: object, what: str, example: str) -> str | int | float:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ValueError(f"expected {what} such as {example}, got {shown(value)}")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"expected {what} such as {example}, got {value}")
    return value


def _parsed(
    value: object,
    what: str,
    example: str,
    parse: Callable[[str | int | float], int],
    most: tuple[int, str],
) -> int:
    """`value` parsed as `what` (a rate, a size); ValueError above the most it may be
    (the number, and as a person says it). One too long for the parser is above it."""
    value = _finite_number_or_text(value, f"a {what}", example)
    try:
        parsed = parse(value)
    except OverflowError:  # "9" * 400 overflows the float inside the parser
        parsed = most[0] + 1
    if parsed > most[0]:
        raise ValueError(f"{what} {value} is above {most[1]}")
    return parsed


def _rate(value: object) -> int:
    return _parsed(value, "rate", "1000M or 94100000", parse_rate, (MAX_RATE, "10 Tbit/s"))


def _congestion(value: object) -> str:
    if not isinstance(value, str) or not re.fullmatch(r"[a-z][a-z0-9_]{0,15}", value):
        raise ValueError(
            f"expected a congestion control's name such as cubic, bbr or reno, got {shown(value)}"
        )
    return value


def _delay(value: object) -> float:
    if not isinstance(value, str):
        raise ValueError(f"expected a delay with its unit such as 40ms, got {shown(value)}")
    seconds = parse_delay(value)
    if seconds > MAX_QUEUE_SECONDS:
        raise ValueError(f"delay {value!r} is above {MAX_QUEUE_SECONDS:g} s")
    return seconds


def _size(value: object) -> int:
    return _parsed(value, "size", "64K or 1470", parse_size, (MAX_SIZE, "2 GiB"))


def check_name(value: object) -> str:
    """A test id, path or host name as written -> str; ValueError if unusable."""
    # YAML reads `id: 1` as an integer; ids are strings everywhere else.
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        value = str(value)
    if not isinstance(value, str):
        raise ValueError(f"expected a name such as 4 or tcp-1500, got {shown(value)}")
    if not _NAME.fullmatch(value):
        raise ValueError(
            f"{value!r} is not a usable name: use letters, digits and . _ + - "
            "(it becomes part of file names and result keys)"
        )
    return value


def _link(value: object) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)  # a bare number of bit/s
    if not isinstance(value, str):
        raise ValueError(f"expected a link such as gbe, fe or 300mbit, got {shown(value)}")
    try:
        parse_link(value)
    except OverflowError:
        raise ValueError(f"link rate {value!r} is out of range") from None
    return value.strip().lower()


def _ssh_target(value: str) -> str:
    SshTarget.parse(value)  # raises ValueError with the reason
    return value


# A host's network port (plan/ports.py): its name, its address with a prefix, its gateway.
# IFNAMSIZ is 16 with the NUL; the kernel refuses "/" and whitespace. As tune's fence.
_PORT = re.compile(r"[A-Za-z0-9_.:@-]{1,15}")


def port_name(value: str) -> str:
    if "/" in value or ".." in value or not _PORT.fullmatch(value) or value == "lo":
        raise ValueError(
            f"{value!r} is not a network port's name: 1-15 letters, digits and _ . : @ - "
            "as `ip -br link` shows it (not lo)"
        )
    return value


def gateway_address(value: str) -> str:
    try:
        return str(ipaddress.ip_address(value))
    except ValueError:
        raise ValueError(f"{value!r} is not an IP address, such as 192.168.1.1") from None


def with_prefix(value: str) -> str:
    """An address with a prefix (192.168.1.50/24) must be a valid interface address."""
    try:
        found = ipaddress.ip_interface(value)
    except ValueError:
        raise ValueError(
            f"{value!r} is not an address with its prefix, such as 192.168.1.50/24"
        ) from None
    if found.ip == found.network.network_address and found.network.num_addresses > 2:
        raise ValueError(f"{value!r} is the network's own address, not a host's in it")
    return value


def _address(value: str) -> str:
    if "/" in value:  # a port's address with its prefix (plan/ports.py)
        return with_prefix(value)
    if not is_host(value):
        raise ValueError(
            f"{value!r} is not an address: write an IP address or a host name "
            "(letters, digits, - and .)"
        )
    return value


def _one_line(value: str) -> str:
    """Free text (a title, a test's name): anything printable, on one line.

    Control characters and line breaks would rewrite a terminal or split a row of a
    Markdown table; everything else (quotes, `;`, `$(`, `|`, `<`) is kept as written
    and escaped by each report format.
    """
    for index, char in enumerate(value):
        if unicodedata.category(char) in ("Cc", "Zl", "Zp"):
            raise ValueError(
                f"{value!r} is not one line of printable text "
                f"({char!r} at position {index + 1} is a control character or a line break)"
            )
    return value


def _cpu_mask(value: object) -> str:
    """`spread`, `off` (or 0), or a hex CPU mask as text ("3f", "0x3f", "ff,ffffffff")."""
    if value == 0 and not isinstance(value, bool):
        return "0"
    if isinstance(value, int) and not isinstance(value, bool):
        # YAML reads 10 as ten and 0x10 as sixteen; sysfs reads "10" as CPU 4. Text only.
        raise ValueError(
            f'write a CPU mask as quoted hex text, such as "{value}" or "0x{value:x}", '
            "not as a number"
        )
    if not isinstance(value, str):
        raise ValueError(f'expected spread, off or a hex CPU mask such as "3f", got {shown(value)}')
    text = value.strip().lower()
    if text in (RPS_SPREAD, "off"):
        return RPS_SPREAD if text == RPS_SPREAD else "0"
    bare = text.removeprefix("0x")
    if not _MASK.fullmatch(bare):
        raise ValueError(f"{value!r} is not spread, off or a hex CPU mask such as 3f")
    return bare


def _on_off(value: object) -> str:
    # YAML 1.2 reads on/off as text, true/false as booleans: both mean the same here.
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, str) and value.strip().lower() in ("on", "off"):
        return value.strip().lower()
    raise ValueError(f"expected on or off, got {shown(value)}")


def _feature(value: object) -> str:
    if not isinstance(value, str) or not _FEATURE.fullmatch(value.strip().lower()):
        raise ValueError(
            f"{value!r} is not an offload feature: use ethtool's names, such as gro, gso, "
            "tso or generic-receive-offload"
        )
    # Kept as written (gro or generic-receive-offload): the tuning code knows ethtool's
    # aliases, and importing it here would load the store for every `wirespeed check`.
    return value.strip().lower()


def _cpu_number(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_CPU:
        raise ValueError(f"expected a CPU number such as 0 or 1, got {shown(value)}")
    return value


def _cpus_online(value: list[int]) -> tuple[int, ...]:
    if 0 not in value:
        # cpu0 cannot go offline on most kernels (no online file), and where it can,
        # timekeeping and most IRQs sit on it.
        raise ValueError("cpu0 must stay online: list it in cpus_online, as [0] or [0, 1]")
    if len(set(value)) != len(value):
        raise ValueError(f"a CPU is listed twice in {sorted(value)}")
    return tuple(sorted(value))


def _governor(value: object) -> str:
    if not isinstance(value, str) or not _GOVERNOR.fullmatch(value.strip()):
        raise ValueError(
            f"{shown(value)} is not a cpufreq governor's name, such as performance, "
            "schedutil, ondemand or powersave"
        )
    return value.strip()


def _frequency(value: object) -> int:
    """ "1.2GHz", "1416MHz", "1416000kHz" -> kHz, the unit of scaling_max_freq."""
    text = value.strip().lower() if isinstance(value, str) else None
    found = _FREQUENCY.fullmatch(text) if text is not None else None
    if found is None:
        raise ValueError(
            f"expected a frequency with its unit, such as 1.2GHz, 1416MHz or 1416000kHz, "
            f"got {shown(value)}"
        )
    khz = float(found["number"]) * _FREQUENCY_UNITS[found["unit"]]
    if khz != int(khz) or not 1 <= khz <= 10**10:
        raise ValueError(f"{value!r} is not a whole number of kHz between 1 kHz and 10 THz")
    return int(khz)


def _policy(value: object) -> int:
    text = str(value) if isinstance(value, int) and not isinstance(value, bool) else value
    found = _POLICY.fullmatch(text) if isinstance(text, str) else None
    if found is None:
        raise ValueError(f"expected a cpufreq policy such as policy0 or 4, got {shown(value)}")
    return int(found["first"])


def _max_freq(value: object) -> dict[int, int]:
    """`1.2GHz` for every policy, or `{policy0: 1.2GHz, 4: 1.8GHz}` per policy."""
    if not isinstance(value, dict):
        return {ALL_POLICIES: _frequency(value)}
    if not value:
        raise ValueError("the mapping is empty: write a frequency, or {policyN: FREQ}")
    found: dict[int, int] = {}
    for key, khz in value.items():
        policy = _policy(key)
        if policy in found:
            raise ValueError(f"policy{policy} is given twice")
        try:
            found[policy] = _frequency(khz)
        except ValueError as error:
            raise ValueError(f"{key}: {error}") from None
    return found


def _dut(value: object) -> object:
    """A path's dut: a host name, or (a lab path) a mapping of the lab DUT's limits, which
    assemble.py validates where it knows which kind of path this is."""
    if isinstance(value, dict) or value is None:
        return value
    return check_name(value)


Name = Annotated[str, BeforeValidator(check_name)]
Rate = Annotated[int, BeforeValidator(_rate)]  # bit/s, SI: 1000M = 10^9
Size = Annotated[int, BeforeValidator(_size)]  # bytes, binary: 64K = 65536
Seconds = Annotated[float, Field(strict=True, gt=0, le=MAX_SECONDS, allow_inf_nan=False)]
Mtu = Annotated[int, Field(strict=True, ge=68, le=65535)]
Streams = Annotated[int, Field(strict=True, ge=1, le=128)]
Text = Annotated[str, Field(strict=True, min_length=1)]
Label = Annotated[Text, AfterValidator(_one_line)]  # free text shown in reports
LinkName = Annotated[str, BeforeValidator(_link)]
Delay = Annotated[float, BeforeValidator(_delay)]  # seconds, written with a unit: 40ms


def _served(value: object) -> Tool:
    """A tool some kind serves (trial_kind.tools(): those the kinds' modules declare),
    refused as a value outside an enumeration is, with the tools there are."""
    known = tools()
    if isinstance(value, str) and value in known:
        return Tool(value)
    expected = ", ".join(repr(str(tool)) for tool in known[:-1]) + f" or {str(known[-1])!r}"
    raise PydanticCustomError("enum", "Input should be {expected}", {"expected": expected})


# Lower-cased before it is looked up: the last of Annotated's validators runs first.
ToolName = Annotated[Tool, PlainValidator(_served), BeforeValidator(_lower)]
ProtoName = Annotated[Proto, BeforeValidator(_lower)]
ProbesName = Annotated[Probes, BeforeValidator(_lower)]
DirectionName = Annotated[Direction, BeforeValidator(_lower)]
TopologyName = Annotated[Topology, BeforeValidator(_lower)]
CpuMask = Annotated[str, BeforeValidator(_cpu_mask)]
OnOff = Annotated[str, BeforeValidator(_on_off)]
Feature = Annotated[str, BeforeValidator(_feature)]
CpuNumber = Annotated[int, BeforeValidator(_cpu_number)]
CpusOnline = Annotated[list[CpuNumber], AfterValidator(_cpus_online)]
Governor = Annotated[str, BeforeValidator(_governor)]
# kHz by the policy's first CPU, ALL_POLICIES for one frequency written for every policy.
MaxFreq = Annotated[dict[int, int], BeforeValidator(_max_freq)]


class Entry(BaseModel):
    """Unknown keys are errors: a typo must never silently fall back to a default."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class DutEntry(Entry):
    """`dut:` under `lab:` (every lab path's DUT) or on a lab path: what the emulated DUT
    forwards at most, both directions together; nothing set: as fast as this machine."""

    forward_pps: Annotated[int, Field(strict=True, ge=1, le=MAX_PPS)] | None = None
    forward_rate: Rate | None = None  # bit/s on the wire, as a link's rate
    # Packets waiting for the DUT's CPU at most (lab/limits.py); None: the lab's default,
    # or the lab's queue at the DUT's rate.
    ring: Annotated[int, Field(strict=True, ge=1, le=MAX_RING)] | None = None

    @model_validator(mode="after")
    def _ring_needs_a_rate(self) -> DutEntry:
        if self.ring is not None and self.forward_pps is None and self.forward_rate is None:
            raise ValueError(
                "ring: the ring of a DUT that forwards at most so much, and neither "
                "forward_pps nor forward_rate is given"
            )
        return self


class LabEntry(Entry):
    """`lab:` — the emulated topology on this machine."""

    link: LinkName = "gbe"
    mtu: Mtu = 1500
    # Seconds of data the bottleneck's queue holds ("40ms"): a bufferbloated router.
    queue: Delay | None = None
    dut: DutEntry | None = None


class PowerEntry(Entry):
    """`power:` — the board's power during every traffic trial: a meter's command run on
    this machine (None: the device's own hwmon sensors), how often, and how long the
    idle baseline before each trial's traffic lasts."""

    meter: Text | None = None
    interval: Seconds = 1.0
    idle: Annotated[float, Field(ge=0, le=600, allow_inf_nan=False)] = 3.0


class HostEntry(Entry):
    """One entry of `hosts:`. Without ssh the host is this machine; with port, one of its
    network ports, moved into a namespace for the run (plan/ports.py)."""

    address: Annotated[Text, AfterValidator(_address)] | None = None
    ssh: Annotated[Text, AfterValidator(_ssh_target)] | None = None
    port: Annotated[Text, AfterValidator(port_name)] | None = None
    gateway: Annotated[Text, AfterValidator(gateway_address)] | None = None
    mtu: Mtu | None = None
    force: Annotated[bool, Field(strict=True)] = False


def _cipher(value: object) -> str:
    from wirespeed.tools.openvpn import AEAD_CIPHERS

    text = value.strip().upper() if isinstance(value, str) else None
    if text not in AEAD_CIPHERS:
        raise ValueError(
            f"{shown(value)} is not an AEAD data channel cipher: use one of "
            f"{', '.join(AEAD_CIPHERS)} (a CBC cipher's overhead varies with its padding)"
        )
    return text


class TunnelOptions(Entry):
    """The options of a path's tunnel a variant may change (`variants: - tunnel: {...}`)."""

    # The tunnel device's MTU: OpenVPN's --tun-mtu (default 1500), WireGuard's (1420).
    tun_mtu: Mtu | None = None
    # OpenVPN's --fragment and --mssfix (0: off; left out: OpenVPN's default).
    fragment: Annotated[int, Field(strict=True, ge=0, le=65535)] | None = None
    mssfix: Annotated[int, Field(strict=True, ge=0, le=65535)] | None = None
    cipher: Annotated[str, BeforeValidator(_cipher)] | None = None  # OpenVPN's data cipher
    proto: ProtoName | None = None  # the outer transport: udp (default) or tcp (OpenVPN)


class TunnelEntry(TunnelOptions):
    """`tunnel:` on a path: the traffic goes through a VPN tunnel (in the lab, or started
    on the path's real hosts)."""

    kind: Annotated[TunnelKind, BeforeValidator(_lower)]
    ends: Annotated[TunnelEnds, BeforeValidator(_lower)] = TunnelEnds.DUT


class PathEntry(Entry):
    """One entry of `paths:`. Without client/server/dut it is a path through the lab."""

    name: Name
    topology: TopologyName
    client: Name | None = None
    server: Name | None = None
    # A host name; on a lab path a mapping of the lab DUT's limits (DutEntry).
    dut: Annotated[str | dict[str, Any] | None, BeforeValidator(_dut)] = None
    link: LinkName | None = None
    tunnel: TunnelEntry | None = None  # a VPN tunnel the traffic goes through

    @property
    def dut_host(self) -> str | None:
        """dut: as a host's name; None when left out or a mapping of lab limits."""
        return self.dut if isinstance(self.dut, str) else None


# Keys that must have a value when present; the others take null as "the tool's default".
_NOT_NULL = ("tool", "protocol", "duration", "parallel", "direction", "interval")


class TestSettings(Entry):
    """The keys a test shares with `defaults:`."""

    __test__ = False  # not a pytest test class, despite the name

    tool: ToolName | None = None
    protocol: ProtoName | None = None
    duration: Seconds | None = None
    window: Size | None = None
    parallel: Streams | None = None
    direction: DirectionName | None = None
    rate: Rate | None = None
    length: Size | None = None
    mtu: Mtu | None = None
    interval: Seconds | None = None
    # Latency probes before and during the load (irtt, falling back to ping; or ping).
    probes: ProbesName | None = None
    # The TCP senders' congestion control: cubic fills a queue, bbr keeps it short.
    congestion: Annotated[str, BeforeValidator(_congestion)] | None = None
    # RRUL: streams added each way until the goodput is stable (RPM-like; rrul only).
    until_stable: Annotated[bool, Field(strict=True)] | None = None

    @field_validator(*_NOT_NULL, mode="before")
    @classmethod
    def _needs_a_value(cls, value: Any) -> Any:
        if value is None:
            raise ValueError("needs a value (leave the key out to use the default)")
        return value


class TestEntry(TestSettings):
    """One entry of `tests:`."""

    id: Name
    name: Label | None = None
    paths: list[Name] | None = None  # run only on these paths; all when absent
    # What the test must reach; read by plan/expect.py, which knows every measurement.
    expect: Any = None
    # A benchmark's own settings (tool: openssl, 7zip, unixbench), validated by its
    # driver's Options model (tools/openssl.py ...) where the plan is assembled.
    options: dict[str, Any] | None = None


class VariantEntry(Entry):
    """One entry of `variants:`: a named state; keys left out are left as they are."""

    name: Name
    mtu: Mtu | None = None
    rps: CpuMask | None = None
    xps: CpuMask | None = None
    offloads: dict[Feature, OnOff] | None = None
    cpus_online: CpusOnline | None = None
    governor: Governor | None = None
    # One frequency for every cpufreq policy, or one per policy ({policy4: 1.8GHz}).
    max_freq: MaxFreq | None = None
    # Options of the paths' tunnels in this variant (tun_mtu: 6000 against the default).
    tunnel: TunnelOptions | None = None
    # `suggest`: what `wirespeed tune suggest` proposes for the DUT (docs/tuning.md).
    tune: Literal["suggest"] | None = None
    # Only these tests run in this variant (default: every test).
    tests: list[Name] | None = None


SETTING_KEYS: tuple[str, ...] = tuple(TestSettings.model_fields)
TEST_ONLY_KEYS: tuple[str, ...] = tuple(
    key for key in TestEntry.model_fields if key not in TestSettings.model_fields
)


class Header(BaseModel):
    """The plain top-level keys; the sections are validated entry by entry."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    title: Label | None = None
    repetitions: Annotated[int, Field(strict=True, ge=1, le=MAX_REPETITIONS)] = 1


class PlanFile(Entry):
    """The whole file, for reference and JSON Schema; load.py validates it piece by piece."""

    title: Label | None = None
    lab: LabEntry | None = None
    hosts: dict[Name, HostEntry] = Field(default_factory=dict)
    paths: list[PathEntry]
    defaults: TestSettings = Field(default_factory=TestSettings)
    tests: list[TestEntry]
    variants: list[VariantEntry] | None = None
    repetitions: Annotated[int, Field(strict=True, ge=1, le=MAX_REPETITIONS)] = 1
    power: PowerEntry | None = None


TOP_LEVEL_KEYS: tuple[str, ...] = tuple(PlanFile.model_fields)
# Top-level keys starting with this are left alone: a place for YAML anchors.
EXTENSION_PREFIX = "x-"
