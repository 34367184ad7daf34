"""What a host was doing just before a benchmark started: its load average, how busy
its CPUs were over a short window, and which processes used them.

A benchmark measures the CPU it gets. One started while something else runs (a
package update, a forgotten `yes`, the previous test's stragglers) measures what was
left, and says nothing about it. So just before the start one short script runs on
the device, through the Host like every other command:

    sh -c SCRIPT wirespeed-before ROOT WINDOW

It scans /proc/[0-9]*/stat, reads /proc/stat, waits WINDOW seconds, reads /proc/stat
again and scans the same processes again. Plain POSIX sh and awk, as the sampler
(sampler.sh): it runs under dash, bash and busybox alike, and where busybox's `sleep`
takes no fraction (OpenWrt builds it so) it waits a whole second instead. ROOT is "/"
or a directory holding a fake /proc, for tests. The parameters travel as arguments,
never inside the script text.

The script prints raw counters (ticks since boot); `parse_before_start` turns them into
shares, so that the output can be kept and parsed again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from wirespeed.errors import WirespeedError
from wirespeed.hosts.base import Host
from wirespeed.sampling.model import CpuTimes
from wirespeed.sampling.procfs import parse_loadavg, parse_stat
from wirespeed.sampling.series import cpu_share, grown

SCRIPT_NAME = "wirespeed-before"  # $0 of the script: what ps shows
FORMAT_VERSION = 1
# Long enough for a process that holds a core to show as such (50 ticks at USER_HZ 100,
# a 2 % step), short enough to add nothing noticeable before each benchmark.
DEFAULT_WINDOW = 0.5
MIN_WINDOW = 0.1
MAX_WINDOW = 10.0

# Output, in this order:
#   @@wirespeed-before 1
#   @@self PID                  the script's shell: it and its children are not counted
#   @@procs                     "PID PPID TICKS COMM" per process (utime + stime)
#   @@stat UPTIME               then the cpu lines of /proc/stat
#   @@loadavg TEXT              /proc/loadavg as it is
#   @@stat UPTIME               after the window
#   @@procs                     the same processes again
#   @@end
# /proc/stat is read right before and right after the wait, and the processes outside
# that, so that the script's own scanning falls outside the window the shares span.
# The uptime is this kernel's clock even with a fake ROOT (as the sampler's): the
# window's length is real time.
_SCRIPT = r"""
root=${1%/}
window=$2
WS_ROOT=$root
export WS_ROOT
WS_AWK='
function uptime(   line, parts) {
	line = ""
	getline line < "/proc/uptime"
	close("/proc/uptime")
	split(line, parts, " ")
	return parts[1]
}

function stat(   path, line) {
	print "@@stat " uptime()
	path = root "/proc/stat"
	while ((getline line < path) > 0) {
		if (line !~ /^cpu/) break
		print line
	}
	close(path)
}

# "PID (COMM) STATE PPID ...": COMM may hold ") ", the fields follow the last one.
# utime and stime are the 12th and 13th fields after COMM.
function processes(   n, pids, i, path, line, rest, taken, j, fields) {
	print "@@procs"
	n = split(ENVIRON["WS_PIDS"], pids, " ")
	for (i = 1; i <= n; i++) {
		path = root "/proc/" pids[i] "/stat"
		line = ""
		if ((getline line < path) > 0) {
			rest = substr(line, index(line, "(") + 1)
			taken = 0
			while ((j = index(rest, ") ")) > 0) {
				taken += j + 1
				rest = substr(rest, j + 2)
			}
			split(rest, fields, " ")
			print pids[i] " " fields[2] " " (fields[12] + fields[13]) " " \
				substr(line, index(line, "(") + 1, taken - 2)
		}
		close(path)
	}
}

BEGIN {
	root = ENVIRON["WS_ROOT"]
	if (ENVIRON["WS_PART"] == "first") {
		processes()
		stat()
		line = ""
		getline line < (root "/proc/loadavg")
		print "@@loadavg " line
	} else {
		stat()
		processes()
		print "@@end"
	}
}
'
echo "@@wirespeed-before 1"
echo "@@self $$"
cd "$root/proc" || exit 2
# The processes are listed once: one started during the window has no baseline, and is
# left out rather than charged with ticks spent before it.
set -- [0-9]*
WS_PIDS=$*
export WS_PIDS
WS_PART=first awk "$WS_AWK" || exit 2
# busybox without FLOAT_DURATION refuses a fraction at once: a whole second then.
sleep "$window" 2>/dev/null || sleep 1
WS_PART=second awk "$WS_AWK" || exit 2
"""


class BeforeStartError(WirespeedError):
    """The script failed, or its output is not what it writes."""


@dataclass(frozen=True)
class BusyProcess:
    pid: int
    ppid: int
    comm: str
    core_pct: float  # percent of one core over the window (a multithreaded one: over 100)


@dataclass(frozen=True)
class BeforeStart:
    """The host just before the start. Shares span the window; the load averages are
    the kernel's (1, 5 and 15 minutes), as read at its beginning."""

    load1: float
    load5: float
    load15: float
    cpu_count: int  # online CPUs, as /proc/stat lists them
    busy_pct: float  # of the whole machine (all its CPUs) over the window
    processes: tuple[BusyProcess, ...]  # those that ran, the busiest first; not the script's
    window_s: float  # how long the window was, by the host's clock
    script_pid: int | None = None


def before_start_argv(root: str = "/", window: float = DEFAULT_WINDOW) -> list[str]:
    """argv that reads the host under `root` ("/" for the live system, or a directory
    holding a fake /proc) over `window` seconds."""
    if not MIN_WINDOW <= window <= MAX_WINDOW:
        raise ValueError(f"window must be {MIN_WINDOW}..{MAX_WINDOW} s, got {window}")
    if not root.startswith("/"):
        raise ValueError(f"root must be an absolute path, got {root!r}")
    # busybox sleep takes fractions but not exponents: 0.5, never 5e-01.
    window_text = f"{window:.3f}".rstrip("0").rstrip(".")
    return ["sh", "-c", _SCRIPT, SCRIPT_NAME, root, window_text]


def measure_before_start(
    host: Host, *, root: str = "/", window: float = DEFAULT_WINDOW, timeout: float = 15.0
) -> tuple[BeforeStart, str]:
    """Run the script on `host`: what it found, and its output as it came (to keep)."""
    done = host.run(before_start_argv(root, window), timeout=timeout)
    if done.returncode != 0:
        said = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ""
        raise BeforeStartError(
            f"{host.name}: the before-start check failed (exit status {done.returncode})"
            + (f": {said}" if said else "")
        )
    return parse_before_start(done.stdout), done.stdout


# pid -> (ppid, ticks used since it started, comm)
_Scan = dict[int, tuple[int, int, str]]


def _scan(lines: Sequence[str]) -> _Scan:
    scan: _Scan = {}
    for line in lines:
        parts = line.split(" ", 3)
        if len(parts) < 4:
            continue  # a process that vanished mid-read leaves a cut line
        try:
            pid, ppid, used = int(parts[0]), int(parts[1]), int(parts[2])
        except ValueError:
            continue
        scan[pid] = (ppid, used, parts[3])
    return scan


def _sections(text: str) -> list[tuple[str, str, list[str]]]:
    """(tag, its argument, the lines under it) in order."""
    sections: list[tuple[str, str, list[str]]] = []
    for line in text.splitlines():
        if line.startswith("@@"):
            tag, _, argument = line[2:].partition(" ")
            sections.append((tag, argument, []))
        elif sections:
            sections[-1][2].append(line)
    return sections


_SECTIONS = ["wirespeed-before", "self", "procs", "stat", "loadavg", "stat", "procs", "end"]


def parse_before_start(text: str) -> BeforeStart:
    """The script's output -> what the host was doing; BeforeStartError if it is not
    complete (a script cut short says nothing about the window)."""
    sections = _sections(text)
    tags = [tag for tag, _, _ in sections]
    if tags != _SECTIONS:
        raise BeforeStartError(f"not a complete before-start output (sections: {tags})")
    header, myself, first_procs, first_stat, loadavg, last_stat, last_procs, _ = sections
    if header[1] != str(FORMAT_VERSION):
        raise BeforeStartError(f"before-start output version {header[1]!r} is unknown")
    script_pid = int(myself[1]) if myself[1].isdigit() else None
    first_total, _ = parse_stat("\n".join(first_stat[2]))
    last_total, last_cpus = parse_stat("\n".join(last_stat[2]))
    loads = parse_loadavg(loadavg[1]) or (0.0, 0.0, 0.0)
    try:
        window_s = max(float(last_stat[1]) - float(first_stat[1]), 0.0)
    except ValueError:
        window_s = 0.0
    cpu_count = len(last_cpus) or 1
    share = None
    if first_total is not None and last_total is not None:
        share = cpu_share(first_total, last_total)
    ticks = _window_ticks(first_total, last_total, cpu_count, window_s)
    return BeforeStart(
        load1=loads[0],
        load5=loads[1],
        load15=loads[2],
        cpu_count=cpu_count,
        busy_pct=share.busy if share is not None else 0.0,
        processes=_loads(_scan(first_procs[2]), _scan(last_procs[2]), script_pid, ticks),
        window_s=window_s,
        script_pid=script_pid,
    )


def _window_ticks(
    first: CpuTimes | None, last: CpuTimes | None, cpu_count: int, window_s: float
) -> float:
    """The window in ticks of one CPU, by /proc/stat's own clock, so that a process
    holding a core shows 100 % whatever USER_HZ is; 100 a second (USER_HZ nearly
    everywhere) where /proc/stat did not move (a fake tree)."""
    if first is not None and last is not None:
        ticks = grown(first.total, last.total) / cpu_count
        if ticks > 0:
            return ticks
    return 100.0 * window_s


def _loads(
    first: _Scan, last: _Scan, script_pid: int | None, window_ticks: float
) -> tuple[BusyProcess, ...]:
    if window_ticks <= 0:
        return ()
    loads = []
    for pid, (ppid, used, comm) in last.items():
        if script_pid in (pid, ppid):
            continue  # the script itself, its awk and its sleep
        before = first.get(pid)
        # A pid seen only once, or with another name, is no process the window spans.
        if before is None or before[2] != comm:
            continue
        delta = grown(before[1], used)
        if delta > 0:
            loads.append(BusyProcess(pid, ppid, comm, 100.0 * delta / window_ticks))
    return tuple(sorted(loads, key=lambda load: (-load.core_pct, load.pid)))
