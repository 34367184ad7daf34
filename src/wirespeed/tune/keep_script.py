"""The boot script of `wirespeed tune keep`: POSIX sh that busybox runs, setting kept
settings (tune/keep.py) at every boot.

    NAME            every interface of the script
    NAME eth1       that one only (the hotplug hook's call when eth1 appears)

It finds each IRQ by its action's name in /proc/interrupts, never by number; writes each
knob, reads it back and logs one line per knob to the system log (logger) and stderr;
skips an interface that is not there with a log line and goes on with the others.
WIRESPEED_TUNE_ROOT=DIR makes it read and write DIR/proc and DIR/sys instead (a copy of a
captured tree); offloads, which go through ethtool to the live kernel, are then skipped.
It exits 1 if a knob could not be written, after trying every other one.
"""

from __future__ import annotations

from wirespeed import __version__
from wirespeed.tune.keep import SPREAD, Kept, Knob, Setting

ROOT_VARIABLE = "WIRESPEED_TUNE_ROOT"

_FUNCTIONS = r"""R="${WIRESPEED_TUNE_ROOT:-}"
ONLY="${1:-}"
status=0

# say MESSAGE: one line to stderr and to the system log (where there is one).
say() {
	echo "$TAG: $*" >&2
	logger -t "$TAG" "$*" 2>/dev/null
}

# put FILE VALUE WHAT: write one knob and say what it was and what it reads now.
put() {
	if [ ! -e "$1" ]; then
		say "$3: $1 does not exist, skipped"
		return
	fi
	old=$(cat "$1" 2>/dev/null)
	if (echo "$2" >"$1") 2>/dev/null; then
		say "$3: $old -> $(cat "$1" 2>/dev/null)"
	else
		say "$3: the kernel refused $2 (still $old)"
		status=1
	fi
}

# want IF: whether IF is tuned now: every interface at boot, one from the hotplug hook;
# an interface that is not there is skipped, never an error that stops the others.
want() {
	[ -z "$ONLY" ] || [ "$ONLY" = "$1" ] || return 1
	if [ ! -d "$R/sys/class/net/$1" ]; then
		say "$1: not present, skipped"
		return 1
	fi
}

# mask MASK: the mask as written; "spread" is every online CPU.
mask() {
	if [ "$1" != @SPREAD@ ]; then
		echo "$1"
		return
	fi
	m=0
	for part in $(tr , ' ' <"$R/sys/devices/system/cpu/online"); do
		cpu=${part%-*}
		while [ "$cpu" -le "${part#*-}" ]; do
			m=$((m | (1 << cpu)))
			cpu=$((cpu + 1))
		done
	done
	printf '%x\n' "$m"
}

# irqs_named NAME: the IRQs one of whose actions is NAME, from /proc/interrupts, where a
# numbered line ends with its actions, separated by ", ".
irqs_named() {
	while IFS= read -r line; do
		n=${line%%:*}
		n=${n##* }
		case $n in '' | *[!0-9]*) continue ;; esac
		rest=${line#*:}
		rest=${rest%"${rest##*[! ]}"}
		case $rest in *" $1" | *" $1,"*) echo "$n" ;; esac
	done <"$R/proc/interrupts"
}

# irq IF NAME MASK: every IRQ named NAME onto MASK.
irq() {
	found=
	for n in $(irqs_named "$2"); do
		found=1
		put "$R/proc/irq/$n/smp_affinity" "$3" "$1: IRQ $n ($2) smp_affinity"
	done
	[ -n "$found" ] || say "$1: no IRQ named $2 in /proc/interrupts, skipped"
}

# queues IF QUEUE KNOB MASK: rps_cpus or xps_cpus of QUEUE (rx-0), or of every rx-* / tx-*.
# QUEUE comes quoted and is matched here, in the interface's queues directory only.
queues() {
	found=
	for q in "$R/sys/class/net/$1/queues/"$2; do
		[ -e "$q/$3" ] || continue
		found=1
		put "$q/$3" "$(mask "$4")" "$1: ${q##*/} $3"
	done
	[ -n "$found" ] || say "$1: no $2 $3, skipped"
}

mtu() {
	put "$R/sys/class/net/$1/mtu" "$2" "$1: mtu"
}

# offload IF FEATURE on|off: with ethtool, the live kernel's only.
offload() {
	if [ -n "$R" ]; then
		say "$1: offload $2 $3 skipped under $ROOT_VARIABLE"
	elif ! command -v ethtool >/dev/null 2>&1; then
		say "$1: no ethtool here, offload $2 not set to $3"
		status=1
	elif ethtool -K "$1" "$2" "$3" 2>/dev/null; then
		say "$1: offload $2 $3"
	else
		say "$1: ethtool -K $1 $2 $3 failed"
		status=1
	fi
}
"""


def quote(text: str) -> str:
    """One shell word, single-quoted: nothing in it is expanded."""
    return "'" + text.replace("'", "'\\''") + "'"


def render_script(kept: Kept, name: str) -> str:
    """The boot script, named NAME in the system log."""
    lines = [
        "#!/bin/sh",
        f"# {name}: tuning kept by wirespeed {__version__} (`wirespeed tune keep`),",
        f"# from {_comment(kept.source)}.",
        "# At boot: `" + name + "`; for one interface that appears later: `" + name + " IF`.",
        "# Each IRQ is found by its name in /proc/interrupts: its number can change from one",
        "# boot to the next. One line per knob goes to the system log.",
        f"# {ROOT_VARIABLE}=DIR: DIR/proc and DIR/sys instead of /proc and /sys.",
        "",
        f"TAG={quote(name)}",
        f"ROOT_VARIABLE={ROOT_VARIABLE}",
        _FUNCTIONS.replace("@SPREAD@", SPREAD).rstrip("\n"),
    ]
    for interface in kept.interfaces:
        lines += ["", f"if want {interface}; then"]
        for setting in kept.settings:
            if setting.interface == interface:
                if setting.why:
                    lines.append(f"\t# {_comment(setting.why)}")
                lines.append(_call(setting))
        lines.append("fi")
    lines += ["", 'exit "$status"', ""]
    return "\n".join(lines)


def _call(setting: Setting) -> str:
    interface, value = setting.interface, quote(setting.value)
    if setting.knob is Knob.IRQ:
        then = f"  # IRQ {setting.irq_then} when planned" if setting.irq_then is not None else ""
        return f"\tirq {interface} {quote(setting.key)} {value}{then}"
    if setting.knob in (Knob.RPS, Knob.XPS):
        queue = setting.key or ("rx-*" if setting.knob is Knob.RPS else "tx-*")
        # Quoted even as a pattern: unquoted, the shell would match `rx-*` against the
        # directory the script runs in; `queues` matches it under the sysfs directory.
        return f"\tqueues {interface} {quote(queue)} {setting.knob.value} {value}"
    if setting.knob is Knob.MTU:
        return f"\tmtu {interface} {value}"
    return f"\toffload {interface} {quote(setting.key)} {value}"


def _comment(text: str) -> str:
    return " ".join(text.split())
