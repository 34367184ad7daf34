"""A plan from iperf's own words: `wirespeed run -c lab:router:fe -u -b 100M -t 5`.

The options become the YAML text of a one-test plan, read by the same loader as a plan
file: the same checks and warnings, and the text is what the run stores (so --resume
and `wirespeed report` see an ordinary plan) and what --save-plan writes. A problem the
loader finds is told as the option it came from (`-P 300: ...`), since the user never
saw the YAML's lines.

Numbers are read as the chosen tool reads them (LIMITS.md, "unit traps"), and written
into the plan as plain bit/s and bytes, which mean the same whichever tool runs:

    iperf2  -b, -l, -w: K M G are 2^10 2^20 2^30, k m g are 10^3 10^6 10^9
    iperf3  -b: k and K alike are 10^3 (SI); -l, -w: k and K alike are 2^10
"""

from __future__ import annotations

import dataclasses
import ipaddress
import json
import re
from dataclasses import dataclass

from wirespeed.errors import UsageError
from wirespeed.hosts.ssh_target import SshTarget, is_host
from wirespeed.lab.links import parse_link
from wirespeed.model import Tool, Topology
from wirespeed.plan.load import parse_plan
from wirespeed.plan.plan import Plan
from wirespeed.plan.problems import PlanError, Problem, one_of

SOURCE = "<command line>"

# `-c lab` alone: the lab `wirespeed lab up` builds when given nothing.
LAB_TOPOLOGY = Topology.BRIDGE
LAB_LINK = "gbe"

# Host names in the plan: this machine runs the client; the server is the other one.
HERE = "here"
LOOPBACK = "loopback"

_NUMBER = re.compile(r"(?P<num>\d+(?:\.\d+)?)(?P<prefix>[kKmMgGtT]?)")
_SI = {"": 1, "k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}
_BINARY = {"": 1, "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}
_PATH_NAME_CHARS = re.compile(r"[^A-Za-z0-9._+-]+")


@dataclass(frozen=True)
class AdhocTest:
    """The options of `wirespeed run -c HOST ...`, as typed (numbers still text)."""

    host: str
    tool: Tool = Tool.IPERF3  # as iperf3 -c, unless --tool iperf2
    udp: bool = False
    rate: str | None = None
    length: str | None = None
    parallel: int | None = None
    window: str | None = None
    time: float | None = None  # iperf's default, 10 s, is the plan's default too
    reverse: bool = False
    bidir: bool = False
    repeat: int | None = None

    def words(self) -> str:
        """The test as an iperf command line: the plan's title."""
        program = "iperf" if self.tool is Tool.IPERF2 else "iperf3"
        return f"{program} {self._options()}"

    def command(self) -> str:
        """The wirespeed command line that makes this plan."""
        words = ["wirespeed run", self._options()]
        if self.tool is not Tool.IPERF3:
            words.append(f"--tool {self.tool}")
        if self.repeat is not None:
            words.append(f"--repeat {self.repeat}")
        return " ".join(words)

    def _options(self) -> str:
        words = ["-c", self.host]
        if self.udp:
            words.append("-u")
        for flag, value in (("-b", self.rate), ("-l", self.length), ("-w", self.window)):
            if value is not None:
                words += [flag, value]
        if self.parallel is not None:
            words += ["-P", str(self.parallel)]
        if self.time is not None:
            words += ["-t", f"{self.time:g}"]
        if self.reverse:
            words.append("-R")
        if self.bidir:
            words.append("--bidir")
        return " ".join(words)


@dataclass(frozen=True)
class LabTarget:
    topology: Topology
    link: str


@dataclass(frozen=True)
class HostTarget:
    """A server elsewhere, reached over SSH (ssh set), or this machine's loopback."""

    name: str  # the path's name in reports
    ssh: str | None = None
    address: str | None = None


def parse_target(text: str) -> LabTarget | HostTarget:
    """-c's HOST: `lab[:topology[:link]]`, `[user@]host[:port]` (the server is started
    over SSH) or a loopback address (both ends on this machine)."""
    if text == "lab" or text.startswith("lab:"):
        return _lab_target(text)
    if is_host(text):
        host = text.partition("%")[0]
        if text == "localhost" or _is_loopback(host):
            return HostTarget(name=LOOPBACK, address=text)
        # Bare IPv6 needs brackets to be an SSH target (a colon would start a port).
        return HostTarget(name=_path_name(text), ssh=f"[{text}]" if ":" in text else text)
    try:
        target = SshTarget.parse(text)
    except ValueError as error:
        raise UsageError(
            f"-c {text}: {error}",
            hint="-c takes lab, lab:TOPOLOGY:LINK (lab:router:fe), user@device or an address",
        ) from None
    return HostTarget(name=_path_name(target.host), ssh=text)


def lab_words(text: str, said: str, example: str, topology: Topology) -> tuple[str, str]:
    """The topology and link words of lab, lab:TOPOLOGY or lab:TOPOLOGY:LINK, lower case;
    a word left out is `topology` or LAB_LINK. `said` names the argument in the error
    and `example` is its hint."""
    parts = text.split(":")
    if len(parts) > 3:
        raise UsageError(f"{said}: write lab, lab:TOPOLOGY or lab:TOPOLOGY:LINK", hint=example)
    topology_text = parts[1].strip().lower() if len(parts) > 1 and parts[1] else topology
    link = parts[2].strip().lower() if len(parts) > 2 and parts[2] else LAB_LINK
    return topology_text, link


def _lab_target(text: str) -> LabTarget:
    topology_text, link = lab_words(text, f"-c {text}", "-c lab:router:fe", LAB_TOPOLOGY)
    try:
        topology = Topology(topology_text)
    except ValueError:
        raise UsageError(
            f"-c {text}: no topology {topology_text!r} in the lab",
            hint=f"lab:TOPOLOGY with TOPOLOGY {one_of([t.value for t in Topology])}",
        ) from None
    try:
        parse_link(link)
    except (ValueError, OverflowError) as error:
        raise UsageError(f"-c {text}: {error}") from None
    return LabTarget(topology, link)


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _path_name(host: str) -> str:
    """A host as a path name (letters, digits, . _ + -): fe80::1 -> fe80-1."""
    return _PATH_NAME_CHARS.sub("-", host).strip("-") or "device"


def tool_rate(text: str, tool: Tool) -> int:
    """-b as the tool reads it, in bit/s: iperf2 `1000M` is 1000 x 2^20, iperf3's 10^9."""
    match = _NUMBER.fullmatch(text.strip())
    if not match:
        extra = ""
        if text.strip().endswith("pps"):
            extra = " (packets per second are not supported: give bit/s)"
        elif "/" in text:
            extra = " (iperf3's /burst is not supported)"
        raise UsageError(f"-b {text}: not a rate such as 100M, 1G or 500k{extra}")
    prefix = match["prefix"]
    binary = tool is Tool.IPERF2 and prefix.isupper()
    value = round(float(match["num"]) * (_BINARY if binary else _SI)[prefix.lower()])
    if value <= 0:
        raise UsageError(
            f"-b {text}: a rate must be above 0",
            hint="iperf3's -b 0 (no limit) has no equivalent: give a rate above the link's, "
            "e.g. -b 2G",
        )
    return value


def tool_size(text: str, flag: str, tool: Tool) -> int:
    """-l or -w as the tool reads it, in bytes: iperf2 `64k` is 64000, iperf3's 65536."""
    match = _NUMBER.fullmatch(text.strip())
    if not match or match["prefix"].lower() == "t":
        raise UsageError(f"{flag} {text}: not a size such as 64K, 1470 or 1M")
    prefix = match["prefix"]
    si = tool is Tool.IPERF2 and prefix.islower()
    value = round(float(match["num"]) * (_SI if si else _BINARY)[prefix.lower()])
    if value <= 0:
        raise UsageError(f"{flag} {text}: a size must be above 0")
    return value


@dataclass(frozen=True)
class AdhocPlanText:
    text: str
    options_at: dict[int, str]  # line of the YAML -> the option it was made from


def plan_text(test: AdhocTest) -> AdhocPlanText:
    """The plan's YAML: one test on one path, each option's value on a line of its own."""
    target = parse_target(test.host)
    lines: list[str] = []
    options_at: dict[int, str] = {}

    def add(line: str, option: str | None = None) -> None:
        lines.append(line)
        if option is not None:
            options_at[len(lines)] = option

    add(f"# {test.command()}")
    add("# Rates in bit/s and sizes in bytes, as plain numbers: the same for either tool.")
    add(f"title: {_quoted(test.words())}")
    if isinstance(target, LabTarget):
        add(f"lab: {{link: {_quoted(target.link)}}}", f"-c {test.host}")
        add("paths:")
        path = target.topology.value
        add(f"  - {{name: {path}, topology: {path}}}", f"-c {test.host}")
    else:
        add("hosts:")
        add(f"  {HERE}: {{}}  # this machine: the client")
        server = "server"
        if target.ssh is not None:
            add(f"  {server}: {{ssh: {_quoted(target.ssh)}}}", f"-c {test.host}")
        else:
            add(f"  {server}: {{address: {_quoted(target.address or '')}}}", f"-c {test.host}")
        add("paths:")
        add(
            f"  - {{name: {_quoted(target.name)}, topology: endpoint, client: {HERE}, "
            f"server: {server}}}",
            f"-c {test.host}",
        )
    if test.repeat is not None:
        add(f"repetitions: {test.repeat}", f"--repeat {test.repeat}")
    add("tests:")
    add('  - id: "1"')
    add(f"    tool: {test.tool}", f"--tool {test.tool}")
    if test.udp:
        add("    protocol: udp", "-u")
    if test.rate is not None:
        bits = tool_rate(test.rate, test.tool)
        add(f"    rate: {bits}  # -b {test.rate}", f"-b {test.rate}")
    if test.length is not None:
        size = tool_size(test.length, "-l", test.tool)
        add(f"    length: {size}  # -l {test.length}", f"-l {test.length}")
    if test.window is not None:
        size = tool_size(test.window, "-w", test.tool)
        add(f"    window: {size}  # -w {test.window}", f"-w {test.window}")
    if test.parallel is not None:
        add(f"    parallel: {test.parallel}", f"-P {test.parallel}")
    if test.time is not None:
        add(f"    duration: {test.time!r}", f"-t {test.time:g}")
    if test.reverse:
        add("    direction: down", "-R")
    if test.bidir:
        add("    direction: bidir", "--bidir")
    return AdhocPlanText("\n".join(lines) + "\n", options_at)


def adhoc_plan(test: AdhocTest) -> Plan:
    """The validated plan of an ad-hoc test; problems name the option they came from."""
    made = plan_text(test)
    try:
        plan = parse_plan(made.text, SOURCE)
    except PlanError as error:
        raise PlanError([_as_option(p, made.options_at) for p in error.problems]) from None
    warnings = tuple(_as_option(p, made.options_at) for p in plan.warnings)
    return dataclasses.replace(plan, warnings=warnings)


def _as_option(problem: Problem, options_at: dict[int, str]) -> Problem:
    # Lines of a YAML text the user never saw would say nothing: the option does.
    option = options_at.get(problem.line or 0)
    message = problem.message if option is None else f"{option}: {problem.message}"
    return Problem(SOURCE, None, None, message, problem.hint)


def _quoted(text: str) -> str:
    # JSON's double-quoted strings are YAML's: no value is ever read as YAML syntax.
    return json.dumps(text, ensure_ascii=False)
