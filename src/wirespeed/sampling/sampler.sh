# wirespeed sampler: one long-running awk per host and trial; output format: stream.py.
#
#   sh -c "$(cat sampler.sh)" wirespeed-sampler INTERVAL ROOT MAX_RUNTIME
#
# INTERVAL is in seconds (fractions allowed), ROOT is "/" for the live system or a
# directory holding a fake /proc and /sys, MAX_RUNTIME is the number of seconds after
# which the sampler exits by itself, so one whose controller died cannot outlive its
# trial. Plain POSIX sh and awk: runs under dash, bash and busybox ash/awk alike.
#
# What it costs is what is read how often: /proc/stat every tick (per-core CPU is what
# a short interval is for); the other counters and the gauges about once a second; the
# processes every few seconds. SIGTERM (to this shell, or to its process group) asks
# for a last tick that reads everything, so that each source spans the whole trial.
#
# A host that cannot wait a fraction of a second (busybox built without fractional
# `read -t` and `sleep`, as OpenWrt ships it) samples every whole second instead; the
# stream's @@start line says which interval was kept.
#
# Segments: instead of a sampler per trial, a controller may keep one running and cut
# its output into streams. SIGUSR2 ends the stream (a last tick that reads everything,
# then "@@exit stopped"); awk then reads and writes nothing until SIGUSR1 begins the
# next one: its header again, every file whole again, a new baseline of the processes.
# Each segment is a whole stream, as a sampler started then would have written, without
# what starting one costs (processes, the kernel log's history: ~15 ms of CPU, where a
# tick costs a fraction of a millisecond). The max runtime counts from each segment's
# beginning.
#
# Parameters reach awk through the environment, never through the program text
# (awk -v would also interpret backslashes in a path).

WS_INTERVAL=$1
WS_ROOT=${2%/}
WS_MAXRUN=$3
root=$WS_ROOT

case $WS_INTERVAL in
'' | .* | *. | *[!0-9.]* | *.*.*)
	echo "wirespeed-sampler: the interval must be a decimal number of seconds, got '$WS_INTERVAL'" >&2
	exit 2
	;;
esac

# The interval in milliseconds: shell arithmetic has no fractions, and reads a leading 0
# as octal, so the digits are put together by hand.
whole=${WS_INTERVAL%%.*}
while :; do
	case $whole in
	0?*) whole=${whole#0} ;;
	*) break ;;
	esac
done
case $WS_INTERVAL in
*.*) frac=${WS_INTERVAL#*.}000 ;;
*) frac=000 ;;
esac
frac=${frac%"${frac#???}"}
WS_MS=$((whole * 1000 + 1$frac - 1000))
if [ "$WS_MS" -lt 1 ]; then
	echo "wirespeed-sampler: the interval must be at least 0.001 s, got '$WS_INTERVAL'" >&2
	exit 2
fi

# Files among the arguments that can be read, relative to the root, one per line, in
# $found. A sysfs attribute can exist and still fail every read (a hwmon channel that is
# switched off answers ENODATA): each is tried once here, so that it does not add an
# empty reading every second. Globs are expanded once: hardware does not come and go
# during a trial.
readable() {
	found=
	for f in "$@"; do
		if [ -f "$f" ] && [ -r "$f" ]; then
			case $f in
			"$root"/sys/*)
				x=
				{ IFS= read -r x <"$f" || [ -n "$x" ]; } 2>/dev/null || continue
				;;
			esac
			found="${found:+$found
}${f#"$root"}"
		fi
	done
}

# Read every tick.
readable "$root"/proc/stat
WS_EACH=$found

# Read about once a second (every tick at 1 s and more), and at the first and last tick:
# the counters the summary takes over the whole trial, and the gauges.
readable "$root"/proc/interrupts "$root"/proc/softirqs "$root"/proc/net/dev \
	"$root"/proc/net/softnet_stat "$root"/proc/meminfo "$root"/proc/loadavg \
	"$root"/sys/class/thermal/thermal_zone*/temp \
	"$root"/sys/devices/system/cpu/cpufreq/policy*/scaling_cur_freq \
	"$root"/sys/devices/system/cpu/cpufreq/policy*/scaling_min_freq \
	"$root"/sys/devices/system/cpu/cpufreq/policy*/scaling_max_freq \
	"$root"/sys/class/hwmon/hwmon*/power*_input "$root"/sys/class/hwmon/hwmon*/curr*_input \
	"$root"/sys/class/hwmon/hwmon*/in*_input "$root"/sys/class/hwmon/hwmon*/temp*_input
WS_SECOND=$found

# Read once, at the start: names, limits and topology.
readable \
	"$root"/sys/class/thermal/thermal_zone*/type \
	"$root"/sys/class/thermal/thermal_zone*/trip_point_*_temp \
	"$root"/sys/class/thermal/thermal_zone*/trip_point_*_type \
	"$root"/sys/devices/system/cpu/cpufreq/policy*/affected_cpus \
	"$root"/sys/devices/system/cpu/cpufreq/policy*/cpuinfo_min_freq \
	"$root"/sys/devices/system/cpu/cpufreq/policy*/cpuinfo_max_freq \
	"$root"/sys/class/hwmon/hwmon*/name "$root"/sys/class/hwmon/hwmon*/*_label
WS_ONCE=$found

# The ticks: "T" every interval; "G" about once a second instead, when the counters and
# gauges of WS_SECOND are read too; "P <pids>" instead of a "G" every WS_SCAN seconds,
# when the processes are also scanned (listing /proc is the costliest thing the shell
# does, reading every /proc/PID/stat the costliest thing awk does). On SIGTERM, "F
# <pids>": the last tick, everything read.
#
# The ticker waits in its shell's own `read -t` on a pipe that nothing ever writes to:
# it holds both of its ends (opened again through /proc/self/fd), so the read neither
# returns early nor at end of file, and a tick costs no process. A shell whose `read -t`
# takes no fractions hands the program to busybox sh, then to bash; the last resort is
# `sleep` per tick, a fork and an exec each time. Where neither `read -t` nor `sleep`
# takes a fraction, the interval becomes whole seconds (at least 1). The first line
# tells awk the interval kept and the way of waiting.
WS_TICKER='
trap "" PIPE USR1 USR2
trap "echo F [0-9]*; exit 0" TERM
waits() {
	[ -z "$({ read -t "$1" x </dev/null; exec 0<>/proc/self/fd/0; } 2>&1)" ]
}
# The next shell of WS_SHELLS found on PATH, other than the one running, runs this.
handover() {
	set -f
	IFS=:
	set -- $PATH
	unset IFS
	set +f
	for shell in $WS_SHELLS; do
		WS_SHELLS=${WS_SHELLS#*"$shell"}
		for dir; do
			if [ -x "$dir/$shell" ] && ! [ "$dir/$shell" -ef "/proc/$$/exe" ]; then
				case $shell in
				bash) exec "$dir/bash" -c "$WS_TICKER" wirespeed-ticker ;;
				busybox) exec "$dir/busybox" sh -c "$WS_TICKER" wirespeed-ticker ;;
				esac
			fi
		done
	done
}
wait=$WS_INTERVAL
ms=$WS_MS
if waits "$wait"; then
	how=read
else
	handover
	if sleep 0.001 2>/dev/null; then
		how=sleep
	else
		wait=$(((WS_MS + 500) / 1000))
		[ "$wait" -ge 1 ] || wait=1
		ms=$((wait * 1000))
		how=sleep
		if waits "$wait"; then how=read; fi
	fi
fi
echo "I $wait $how"
every=$(((1000 + ms / 2) / ms))
[ "$every" -ge 1 ] || every=1
if [ "$how" = read ]; then
	exec 0<>/proc/self/fd/0
	pause="read -t $wait x"
else
	pause="sleep $wait || break"
fi
# A second of ticks spelled out, so that a tick costs an echo and a wait and no
# arithmetic; the loop is WS_SCAN seconds of them, the first with a process scan.
second() {
	ticks="echo $1 || break; $pause"
	i=1
	while [ "$i" -lt "$every" ]; do
		ticks="$ticks; echo T || break; $pause"
		i=$((i + 1))
	done
}
second "P [0-9]*"
loop=$ticks
second G
i=$((every * ms))
i=$(((WS_SCAN * 1000 + i - 1) / i))
while [ "$i" -gt 1 ]; do
	loop="$loop; $ticks"
	i=$((i - 1))
done
eval "while :; do $loop; done" 2>/dev/null
'
WS_SHELLS="busybox bash"
WS_SCAN=5
unset BASH_ENV # a file bash would read first
ticker() { eval "$WS_TICKER"; }

# The kernel log reader. /dev/kmsg hands out its whole history first, one record per
# read(2), hundreds or thousands of records from before the trial. The reader drops them
# itself, so that they cost no pipe write and no wake-up of the sampler's awk: piped on,
# they were half of what starting the sampler cost. Records are stamped with the
# scheduler clock, which lags /proc/uptime by some milliseconds, so the last 2 s before
# the start are let through (the parser dates them before 0). Continuation lines
# (" KEY=value") are dropped too. Between records awk blocks in read(2), so the log costs
# nothing while the kernel is quiet. Each record goes out in one write(2) (mawk -W
# interactive writes a `print`'s record and its newline apart): the ticker and this shell
# write to the same pipe, and a line of theirs landing between the two halves would be
# glued to the record and lost (the interval line awk waits for, a segment's end).
WS_KMSG='
BEGIN {
	getline line < "/proc/uptime"
	split(line, parts, " ")
	history = (parts[1] - 2) * 1000000
	FS = ","
}
$3 + 0 >= history && /^[0-9]+,[0-9]+,[0-9]+,/ {
	printf "%s", $0 "\n"
	fflush()
}
'

# /dev/kmsg hands out one record per read(2) and refuses (EINVAL) a read shorter than
# the record. awk reads into what is left of its buffer, so its own reads fail as soon
# as a record is longer than that (busybox awk on a log of 500-byte records): dd reads
# each record whole, 8 KiB at a time (a record's most, CONSOLE_EXT_LOG_MAX), and awk
# reads dd. cat, whose buffer is 4 KiB or more, where a busybox lacks dd.
kmsg_read() {
	if command -v dd >/dev/null 2>&1; then
		exec dd if="$1" bs=8192 2>/dev/null
	fi
	exec cat "$1" 2>/dev/null
}

# The feed, awk's only input: the ticks, and the kernel log records as they are written.
# SIGPIPE is ignored so that once awk is gone `echo` fails, the ticker ends and the
# kernel log reader is killed with it. The reader (dd) blocks in read(2) until the next
# record, so it is killed by its PID too: `jobs -p` names a pipeline's first process
# ($! its last), and dash prints it only outside $(...), hence the file.
feed() {
	trap "" PIPE USR1 USR2 # the segment signals are the top shell's (see the end)
	kmsg=
	reader=
	if [ -r "$root/dev/kmsg" ]; then
		kmsg_read "$root/dev/kmsg" | awk $awkflags "$WS_KMSG" 2>/dev/null &
		kmsg=$!
		jobs="${TMPDIR:-/tmp}/wirespeed-sampler-jobs.$$.$kmsg"
		if { jobs -p >"$jobs"; } 2>/dev/null; then
			read -r reader <"$jobs"
		fi
		rm -f "$jobs"
		# A sampler killed between the two lines above left its file: the next removes it.
		for left in "${TMPDIR:-/tmp}"/wirespeed-sampler-jobs.*; do
			shell=${left#*/wirespeed-sampler-jobs.}
			shell=${shell%%.*}
			case $shell in '' | *[!0-9]*) continue ;; esac
			[ -d "/proc/$shell" ] || rm -f "$left"
		done
		[ "$reader" = "$kmsg" ] && reader=
	fi
	cd "$root/proc" 2>/dev/null || cd /proc || return
	: | ticker
	if [ -n "$kmsg" ]; then kill "$kmsg" $reader 2>/dev/null; fi
}

# The awk program: no single quotes inside, it is one sh word.
WS_AWK='
# Output is gathered per tick and written at once: one write(2) per tick even where
# awk does not buffer its output (mawk -W interactive).
function emit(text) {
	out = out text "\n"
}

function flush() {
	printf "%s", out
	fflush()
	out = ""
}

function uptime(   line, parts) {
	line = ""
	getline line < "/proc/uptime"
	close("/proc/uptime")
	split(line, parts, " ")
	# Kept as text for printing: awk would print 2279300.12 s (26 days) as 2.2793e+06.
	uptext = parts[1]
	return parts[1] + 0
}

# One file, the k-th the program reads. Whole ("@@file") the first time and whenever its
# number of lines changed; else only what changed since its last reading ("@@diff"): the
# changed lines, each run of unchanged ones before a changed line as "@@same N", and
# nothing for the unchanged ones at the end. /proc/stat is cut to its cpu lines and
# /proc/meminfo to the lines the parsers use (the "intr" line of /proc/stat alone can be
# kilobytes on a machine with many IRQs). Lines compare as text: "052" is not "52".
function dump(rel, k,   path, line, n, same, changed, i) {
	path = root rel
	n = 0
	same = 0
	changed = ""
	k = k * 100000
	while ((getline line < path) > 0) {
		if (rel == "/proc/stat") {
			if (line !~ /^cpu/) break
		} else if (rel == "/proc/meminfo") {
			if (line !~ /^(MemTotal|MemFree|MemAvailable|Buffers|Cached|Slab):/) continue
		}
		n++
		if ((prev[k + n] "") == line) {
			same++
		} else {
			if (same) {
				changed = changed "@@same " same "\n"
				same = 0
			}
			changed = changed line "\n"
			prev[k + n] = line
		}
	}
	close(path)
	if (k in count && count[k] == n) {
		out = out "@@diff " rel "\n" changed
	} else {
		count[k] = n
		out = out "@@file " rel "\n"
		for (i = 1; i <= n; i++) out = out prev[k + i] "\n"
	}
}

# CPU ticks (utime + stime) each process used since the previous scan; only those
# that ran. The first scan is the baseline and prints nothing.
function processes(feedline,   n, pids, i, path, line, rest, j, taken, used, delta) {
	n = split(feedline, pids, " ")
	emit("@@procs")
	for (i = 2; i <= n; i++) {
		path = root "/proc/" pids[i] "/stat"
		line = ""
		if ((getline line < path) > 0) {
			# "PID (COMM) STATE ...": COMM may hold ") ", the fields follow the last one.
			rest = substr(line, index(line, "(") + 1)
			taken = 0
			while ((j = index(rest, ") ")) > 0) {
				taken += j + 1
				rest = substr(rest, j + 2)
			}
			# utime and stime are the 12th and 13th fields after COMM.
			match(rest, /^[^ ]+ [^ ]+ [^ ]+ [^ ]+ [^ ]+ [^ ]+ [^ ]+ [^ ]+ [^ ]+ [^ ]+ [^ ]+ /)
			rest = substr(rest, RLENGTH + 1)
			used = rest + substr(rest, index(rest, " ") + 1)
			delta = (pids[i] in ticks) ? used - ticks[pids[i]] : used
			ticks[pids[i]] = used
			if (scanned && delta > 0)
				emit(pids[i] " " delta " " substr(line, index(line, "(") + 1, taken - 2))
		}
		close(path)
	}
	scanned = 1
}

# A tick of the kind the feed asked for. The last one (asked for, or the max runtime
# reached) reads every file, and scans the processes when asked for with their list.
# Returns whether it was the last.
function tick(feedline,   kind, last, i) {
	kind = substr(feedline, 1, 1)
	seq++
	now = uptime()
	last = kind == "F" || kind == "E" || (maxrun > 0 && now - start >= maxrun)
	emit("@@tick " seq " " uptext)
	for (i = 1; i <= neach; i++) dump(each[i], i)
	if (kind != "T" || last) {
		for (i = 1; i <= nsecond; i++) dump(second[i], neach + i)
		if (kind == "P" || kind == "F" || kind == "E") processes(feedline)
	}
	if (vcgencmd != "" && (kind == "P" || kind == "F" || kind == "E" || last)) throttled()
	emit("@@end " seq)
	flush()
	return last
}

# The throttling bits of a Raspberry Pi firmware (vcgencmd get_throttled), with the processes:
# a fork and an exec every few seconds. Its "has occurred" bits are sticky since boot, so
# that an under-voltage between two readings still shows in the next.
function throttled(   command, line) {
	command = "\047" vcgencmd "\047 get_throttled 2>/dev/null"
	line = ""
	command | getline line
	close(command)
	if (line ~ /^throttled=/) emit("@@throttled " substr(line, 11))
}

# /dev/kmsg: "prio,seq,usec_since_boot,flags;message"; the reader (WS_KMSG) passes on
# only the records written since shortly before the start.
function kernel(record,   semi, head, parts) {
	semi = index(record, ";")
	if (semi == 0 || record !~ /^[0-9]+,[0-9]+,[0-9]+,/) return
	head = substr(record, 1, semi - 1)
	split(head, parts, ",")
	if (parts[2] + 0 <= lastkmsg) return
	lastkmsg = parts[2] + 0
	emit("@@kmsg " parts[2] " " parts[3] " " (parts[1] % 8) " " substr(record, semi + 1))
	flush()
}

# The header, once the ticker said which interval it keeps: kernel records that came
# first wait for it.
function header(   line, held, i) {
	while ((getline line) > 0) {
		if (line ~ /^I /) break
		held[++i] = line
	}
	if (line !~ /^I /) return 0
	split(line, how, " ")
	write_header()
	for (i = 1; i in held; i++) kernel(held[i])
	return 1
}

# The device clock is the time of day srand() seeds with.
function write_header(   i) {
	srand()
	emit("@@wirespeed-sampler 3")
	emit("@@start " starttext " " srand() " " how[2] " " maxrun " " ENVIRON["WS_INTERVAL"] \
		" " how[3])
	for (i = 1; i <= nonce; i++) dump(once[i], neach + nsecond + i)
	emit("@@ready")
	flush()
}

# The end of a segment ("E <pids>"): its last tick, then its exit line.
function finish(feedline) {
	tick(feedline)
	emit("@@exit stopped")
	flush()
	active = 0
}

# The beginning of a segment ("B <pids>"): a stream of its own from here, every file whole,
# the first scan of the processes its baseline.
function begin(feedline) {
	delete count
	scanned = 0
	seq = 0
	start = uptime()
	starttext = uptext
	write_header()
	tick("P" substr(feedline, 2))
	active = 1
}

BEGIN {
	root = ENVIRON["WS_ROOT"]
	maxrun = ENVIRON["WS_MAXRUN"] + 0
	vcgencmd = ENVIRON["WS_VCGENCMD"]
	start = uptime()
	starttext = uptext
	neach = split(ENVIRON["WS_EACH"], each, "\n")
	nsecond = split(ENVIRON["WS_SECOND"], second, "\n")
	nonce = split(ENVIRON["WS_ONCE"], once, "\n")
	lastkmsg = -1
	reason = "feed-ended"
	if (!header()) {
		emit("@@exit " reason)
		flush()
		exit 0
	}
	active = 1
	while ((getline line) > 0) {
		kind = substr(line, 1, 1)
		if (kind == "E" || kind == "B") {
			if (active) finish(line)
			if (kind == "B") begin(line)
		} else if (kind ~ /^[TGPF]$/) {
			if (active) {
				if (tick(line)) {
					reason = kind == "F" ? "stopped" : "max-runtime"
					break
				}
			} else if (kind == "F") {
				reason = "stopped"
				break
			} else if (kind != "T" && maxrun > 0 && uptime() - start >= maxrun) {
				reason = "max-runtime"
				break
			}
		} else if (active) {
			kernel(line)
		}
	}
	emit("@@exit " reason)
	flush()
	exit 0
}
'

# mawk reads pipes in blocks unless told to be interactive, which would hold ticks
# back by kilobytes (interactive, it also reads files line by line, and a read that
# fails, of a process gone between the open and the read of its /proc/PID/stat, ends
# that file instead of the program); busybox awk and gawk read what is there and
# reject or warn about -W, so they run without it. Which awk it is shows without running
# it where awk is mawk or busybox under another name (a link to it, as Debian and
# OpenWrt install them); any other awk is asked, which costs a process.
# Whether the first awk on PATH is the same file as the first $1 on PATH.
awk_is() {
	set -f
	IFS=:
	set -- "$1" $PATH
	unset IFS
	set +f
	name=$1
	shift
	found_awk=
	found_other=
	for dir; do
		[ -n "$found_awk" ] || ! [ -x "$dir/awk" ] || found_awk=$dir/awk
		[ -n "$found_other" ] || ! [ -x "$dir/$name" ] || found_other=$dir/$name
	done
	[ -n "$found_awk" ] && [ -n "$found_other" ] && [ "$found_awk" -ef "$found_other" ]
}
if awk_is mawk; then
	awkflags="-W interactive"
elif awk_is busybox; then
	awkflags=
elif [ -z "$(awk -W interactive "BEGIN { }" </dev/null 2>&1)" ]; then
	awkflags="-W interactive"
else
	awkflags=
fi

# The Raspberry Pi firmware's tool, where there is one (a path without a quote: awk
# hands it to sh in single quotes).
WS_VCGENCMD=$(command -v vcgencmd 2>/dev/null) || WS_VCGENCMD=
case $WS_VCGENCMD in
/*\'*) WS_VCGENCMD= ;;
/*) ;;
*) WS_VCGENCMD= ;;
esac

export WS_INTERVAL WS_MS WS_ROOT WS_MAXRUN WS_EACH WS_SECOND WS_ONCE WS_TICKER WS_SHELLS \
	WS_SCAN WS_VCGENCMD

# The sampler runs in the background so that a SIGTERM to this shell alone (a remote
# `kill PID`) is handled at once: a shell runs traps only between foreground commands.
# It asks awk for the last tick through awk's own input (the ticker does the same when
# the whole process group is signalled), and waits for it.
#
# The traps are set before the sampler starts: once awk has written "@@ready" (a
# controller waits for it before it signals), a signal can no longer end this shell. One
# that comes before the sampler's PID is known is handled right after.
sampler=
early=
stop() {
	trap "" TERM INT HUP
	if [ -z "$sampler" ]; then
		early=stop
		return
	fi
	cd "$root/proc" 2>/dev/null || cd /proc
	# Where awk's input cannot be opened, awk is killed: no last tick, but no leftover.
	{ echo F [0-9]* >"/proc/$sampler/fd/0"; } 2>/dev/null || kill -s KILL "$sampler" 2>/dev/null
	wait "$sampler"
	exit 0
}
# A segment's end or beginning, asked for the same way as the last tick.
segment() {
	if [ -z "$sampler" ]; then
		early="segment $1"
		return
	fi
	cd "$root/proc" 2>/dev/null || cd /proc
	{ echo "$1" [0-9]* >"/proc/$sampler/fd/0"; } 2>/dev/null
}
trap stop TERM INT HUP
trap "segment E" USR2
trap "segment B" USR1

# awk ignores SIGTERM and SIGHUP: a stop reaches it as the feed's last tick, so that it
# ends after writing that.
feed | {
	trap "" TERM HUP USR1 USR2
	exec awk $awkflags "$WS_AWK"
} &
sampler=$!
if [ -n "$early" ]; then $early; fi
# A trapped signal ends `wait` early: wait again while the sampler runs.
while :; do
	wait "$sampler"
	kill -0 "$sampler" 2>/dev/null || break
done
