# wirespeed sampler: one long-running awk per host and trial; output format: stream.py.
#
#   sh -c "$(cat sampler.sh)" wirespeed-sampler INTERVAL ROOT MAX_RUNTIME
#
# INTERVAL is in seconds (fractions allowed), ROOT is "/" for the live system or a
# directory holding a fake /proc and /sys, MAX_RUNTIME is the number of seconds after
# which the sampler exits by itself, so one whose controller died cannot outlive its
# trial. Plain POSIX sh and awk: runs under dash, bash and busybox ash/awk alike.
#
# Parameters reach awk through the environment, never through the program text
# (awk -v would also interpret backslashes in a path).

WS_INTERVAL=$1
WS_ROOT=${2%/}
WS_MAXRUN=$3
root=$WS_ROOT
export WS_INTERVAL

# Ticks between two process scans: about a second's worth, at least one.
WS_EVERY=$(awk "BEGIN { n = int(1 / ENVIRON[\"WS_INTERVAL\"] + 0.5); print (n < 1 ? 1 : n) }")
export WS_EVERY

# Readable files among the arguments, relative to the root, one per line. The globs are
# expanded once: hardware does not come and go during a trial.
readable() {
	for f in "$@"; do
		if [ -f "$f" ] && [ -r "$f" ]; then printf '%s\n' "${f#"$root"}"; fi
	done
}

# Read every tick.
WS_EACH=$(readable "$root"/proc/stat "$root"/proc/interrupts "$root"/proc/softirqs \
	"$root"/proc/net/dev "$root"/proc/net/softnet_stat "$root"/proc/meminfo \
	"$root"/proc/loadavg \
	"$root"/sys/class/thermal/thermal_zone*/temp \
	"$root"/sys/devices/system/cpu/cpufreq/policy*/scaling_cur_freq \
	"$root"/sys/devices/system/cpu/cpufreq/policy*/scaling_min_freq \
	"$root"/sys/devices/system/cpu/cpufreq/policy*/scaling_max_freq \
	"$root"/sys/class/hwmon/hwmon*/power*_input "$root"/sys/class/hwmon/hwmon*/curr*_input \
	"$root"/sys/class/hwmon/hwmon*/in*_input "$root"/sys/class/hwmon/hwmon*/temp*_input)

# Read once, at the start: names, limits and topology.
WS_ONCE=$(readable \
	"$root"/sys/class/thermal/thermal_zone*/type \
	"$root"/sys/class/thermal/thermal_zone*/trip_point_*_temp \
	"$root"/sys/class/thermal/thermal_zone*/trip_point_*_type \
	"$root"/sys/devices/system/cpu/cpufreq/policy*/affected_cpus \
	"$root"/sys/devices/system/cpu/cpufreq/policy*/cpuinfo_min_freq \
	"$root"/sys/devices/system/cpu/cpufreq/policy*/cpuinfo_max_freq \
	"$root"/sys/class/hwmon/hwmon*/name "$root"/sys/class/hwmon/hwmon*/*_label)

# The device's wall clock, once: only to place the run in time. Ticks are stamped with
# /proc/uptime, which no NTP step or missing RTC can move.
WS_EPOCH=$(date +%s 2>/dev/null)

# The ticks: a line "T" every interval, "T <pids>" about once a second (listing /proc is
# the costliest thing the shell does, and awk reads /proc/PID/stat only that often).
# The shell waits for the next tick in `read -t` on a pipe that nothing ever writes to:
# the ticker holds both of its ends (opened again through /proc/self/fd), so the read
# neither returns early nor at end of file, and a tick costs no process. `sleep` per
# tick, the fallback for a shell without a fractional `read -t` (dash), costs a fork and
# an exec each time: most of the sampler's CPU at 10 Hz. The program is text so that a
# dash host can run it under bash or busybox sh when it has one.
WS_TICKER='
trap "" PIPE
n=0
tick() {
	if [ "$n" -gt 0 ]; then
		n=$((n - 1))
		echo T
	else
		n=$((WS_EVERY - 1))
		echo T [0-9]*
	fi
}
if [ -n "$WS_READ_T" ] && (exec 0<>/proc/self/fd/0) 2>/dev/null; then
	exec 0<>/proc/self/fd/0
	while tick; do
		read -t "$WS_INTERVAL" x
	done
else
	while tick; do
		sleep "$WS_INTERVAL" || break
	done
fi 2>/dev/null
'

# Which shell runs the ticker with `read -t`: this one, else bash, else busybox sh, else
# none (sleep per tick). A shell without `read -t`, or without fractions in it (busybox
# built without FEATURE_SH_READ_FRAC), complains on stderr.
reads_t() {
	[ -z "$("$@" 'read -t "$1" x </dev/null' sh "$WS_INTERVAL" 2>&1)" ]
}
unset BASH_ENV # a file bash would read first
if [ -z "$( (read -t "$WS_INTERVAL" x </dev/null) 2>&1)" ]; then
	WS_READ_T=1
	ticker() { eval "$WS_TICKER"; }
elif command -v bash >/dev/null 2>&1 && reads_t bash -c; then
	WS_READ_T=1
	ticker() { exec bash -c "$WS_TICKER" wirespeed-ticker; }
elif command -v busybox >/dev/null 2>&1 && reads_t busybox sh -c; then
	WS_READ_T=1
	ticker() { exec busybox sh -c "$WS_TICKER" wirespeed-ticker; }
else
	WS_READ_T=
	ticker() { eval "$WS_TICKER"; }
fi

# The feed, awk's only input: the ticks, and the kernel log records of /dev/kmsg as they
# are written (cat blocks in read(2) between records, so the log costs nothing while the
# kernel is quiet). SIGPIPE is ignored so that once awk is gone `echo` fails, the ticker
# ends and the kernel log reader is killed with it.
feed() {
	trap "" PIPE
	kmsg=
	if [ -r "$root/dev/kmsg" ]; then
		cat "$root/dev/kmsg" 2>/dev/null &
		kmsg=$!
	fi
	cd "$root/proc" 2>/dev/null || cd /proc || return
	: | ticker
	if [ -n "$kmsg" ]; then kill "$kmsg" 2>/dev/null; fi
}

# mawk reads pipes in blocks unless told to be interactive, which would hold ticks
# back by kilobytes; busybox awk and gawk read what is there and reject or warn
# about -W, so they run without it.
if [ -z "$(awk -W interactive "BEGIN { }" </dev/null 2>&1)" ]; then
	set -- -W interactive
else
	set --
fi

export WS_INTERVAL WS_ROOT WS_MAXRUN WS_EACH WS_ONCE WS_EPOCH WS_READ_T

# The awk program: no single quotes inside, it is one sh word.
feed | awk "$@" '
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

# A file between markers. /proc/stat and /proc/meminfo are cut to the lines the parsers
# use: the "intr" line of /proc/stat alone can be kilobytes on a machine with many IRQs.
function dump(rel,   path, line) {
	path = root rel
	emit("@@file " rel)
	if (rel == "/proc/stat") {
		while ((getline line < path) > 0)
			if (line ~ /^(cpu|ctxt|procs_)/) emit(line)
	} else if (rel == "/proc/meminfo") {
		while ((getline line < path) > 0)
			if (line ~ /^(MemTotal|MemFree|MemAvailable|Buffers|Cached|Slab):/) emit(line)
	} else {
		while ((getline line < path) > 0) emit(line)
	}
	close(path)
}

# CPU ticks (utime + stime) each process used since the previous scan; only those
# that ran. The first scan is the baseline and prints nothing.
function processes(feedline,   n, pids, i, path, line, open, parts, k, fields, used, delta) {
	n = split(feedline, pids, " ")
	emit("@@procs")
	for (i = 2; i <= n; i++) {
		if (pids[i] !~ /^[0-9]+$/) continue
		path = root "/proc/" pids[i] "/stat"
		line = ""
		if ((getline line < path) > 0) {
			# "PID (COMM) STATE ...": COMM may hold ") ", the fields follow the last one.
			open = index(line, "(")
			k = split(line, parts, /\) /)
			split(parts[k], fields, " ")
			used = fields[12] + fields[13]
			delta = (pids[i] in ticks) ? used - ticks[pids[i]] : used
			ticks[pids[i]] = used
			if (scanned && delta > 0)
				emit(pids[i] " " delta " " substr(line, open + 1, length(line) - length(parts[k]) - open - 2))
		}
		close(path)
	}
	scanned = 1
}

function tick(feedline,   i) {
	seq++
	now = uptime()
	emit("@@tick " seq " " uptext)
	for (i = 1; i <= neach; i++) dump(each[i])
	# The ticker lists the processes about once a second: reading every /proc/PID/stat
	# is the costliest part of a tick.
	if (feedline != "T") processes(feedline)
	emit("@@end " seq)
	flush()
}

# /dev/kmsg: "prio,seq,usec_since_boot,flags;message", continuation lines start with a
# space. Records from before the start are history, not part of this trial; the kernel
# stamps them with its scheduler clock, which lags /proc/uptime by some milliseconds, so
# the last 2 s before the start are let through (the parser dates them before 0).
function kernel(record,   semi, head, parts, usec) {
	semi = index(record, ";")
	if (semi == 0) return
	head = substr(record, 1, semi - 1)
	split(head, parts, ",")
	usec = parts[3] + 0
	if (usec < (start - 2) * 1000000 || parts[2] + 0 <= lastkmsg) return
	lastkmsg = parts[2] + 0
	emit("@@kmsg " parts[2] " " parts[3] " " (parts[1] % 8) " " substr(record, semi + 1))
	flush()
}

BEGIN {
	root = ENVIRON["WS_ROOT"]
	interval = ENVIRON["WS_INTERVAL"] + 0
	maxrun = ENVIRON["WS_MAXRUN"] + 0
	neach = split(ENVIRON["WS_EACH"], each, "\n")
	nonce = split(ENVIRON["WS_ONCE"], once, "\n")
	lastkmsg = -1
	start = uptime()
	emit("@@wirespeed-sampler 1")
	emit("@@start " uptext " " ENVIRON["WS_EPOCH"] " " ENVIRON["WS_INTERVAL"] " " maxrun)
	for (i = 1; i <= nonce; i++) dump(once[i])
	emit("@@ready")
	flush()
	reason = "feed-ended"
	while ((getline line) > 0) {
		if (line ~ /^T/) {
			tick(line)
			if (maxrun > 0 && now - start >= maxrun) {
				reason = "max-runtime"
				break
			}
		} else if (line ~ /^[0-9]+,[0-9]+,[0-9]+,/) {
			kernel(line)
		}
	}
	emit("@@exit " reason)
	flush()
	exit 0
}
' &

# The sampler runs in the background so that a SIGTERM to this shell alone (a remote
# `kill PID`) is handled at once: a shell runs traps only between foreground commands.
sampler=$!
trap 'kill "$sampler" 2>/dev/null; exit 0' TERM INT HUP
wait "$sampler"
