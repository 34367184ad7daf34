"""The shell scripts wirespeed runs on an SSH device: POSIX sh and busybox applets only.

A device gets no agent. Each program wirespeed starts there gets a directory under the
session's work directory (/tmp/wirespeed/<session>/<n>/) holding its pid, its stdout and
stderr (`out`, `err`) and, once it has ended, its exit status. So a program outlives a
dropped connection, one connection carries one command at a time, and the poller reads
only what is new (`tail -c +K`).

Values (paths, argv) enter a script only through quote(): single quotes, which POSIX sh
never interprets inside. The scripts are sent on stdin to `sh -s`, so the command line
dropbear sees is constant and short whatever the argv (dropbear caps its length).

A watchdog per session keeps the device clean if wirespeed dies without a word (SIGKILL,
a laptop lid): every LEASE seconds it removes the lease file, which each poll of a live
wirespeed re-creates (a shell redirection, no fork); if the lease was not renewed, it
stops every program of the session and removes the session's directory.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass

WORK_ROOT = "/tmp/wirespeed"
LEASE_SECONDS = 30
SHELL = "sh -s"  # the one command line every script is run with


def quote(value: str) -> str:
    return shlex.quote(value)


# A killed program's wrapper writes its status file the moment the program dies, which may
# be while `rm -rf` is emptying that directory: rm then fails with "Directory not empty"
# and the session would stay. Retrying removes what the wrapper wrote; it writes only once.
_REMOVE_BASE = """\
n=0
until rm -rf "$base" 2>/dev/null; do
  n=$((n + 1))
  [ $n -ge 5 ] && break
  [ $n -ge 2 ] && sleep 1
done
"""


def _kill_session(base: str) -> str:
    """Stop every program of the session (TERM, then KILL), then remove its directory."""
    return f"""\
base={quote(base)}
for p in "$base"/*/pid; do
  [ -f "$p" ] || continue
  d=${{p%/pid}}
  [ -f "$d/status" ] || kill -TERM "$(cat "$p")" 2>/dev/null
done
n=0
while [ $n -lt 3 ]; do
  live=0
  for p in "$base"/*/pid; do
    [ -f "$p" ] || continue
    d=${{p%/pid}}
    [ -f "$d/status" ] || {{ kill -0 "$(cat "$p")" 2>/dev/null && live=1; }}
  done
  [ $live -eq 0 ] && break
  sleep 1
  n=$((n + 1))
done
for p in "$base"/*/pid; do
  [ -f "$p" ] || continue
  d=${{p%/pid}}
  [ -f "$d/status" ] || kill -KILL "$(cat "$p")" 2>/dev/null
done
{_REMOVE_BASE}# The last session leaves no work root behind: rmdir removes it only when it is empty
# (a launch racing this one makes it again, launch below).
rmdir "${{base%/*}}" 2>/dev/null
# The loop's own status is its last test's: a removal that succeeded on its second
# try would say 1. The directory's absence is the answer.
[ ! -e "$base" ]
"""


def _watchdog(base: str, lease: int) -> str:
    return f"""\
s=
trap '[ -n "$s" ] && kill "$s" 2>/dev/null; exit 0' TERM INT HUP
while [ -d {quote(base)} ]; do
  rm -f {quote(base)}/lease
  sleep {lease} &
  s=$!
  wait "$s"
  s=
  [ -d {quote(base)} ] || exit 0
  [ -e {quote(base)}/lease ] || break
done
{_kill_session(base)}"""


def launch(base: str, number: int, argv: Sequence[str], lease: int = LEASE_SECONDS) -> str:
    """Start argv in the background under base/number; print its PID.

    Safe to send twice (a retry after a lost reply): the second finds the directory and
    prints the PID the first recorded. The first program of a session starts the
    session's watchdog."""
    if not argv:
        raise ValueError("argv must not be empty")
    directory = f"{base}/{number}"
    return f"""\
umask 077
# A second try: another session's close may remove the empty work root between mkdir's steps.
mkdir -p {quote(base)} || mkdir -p {quote(base)} || exit 90
: > {quote(base)}/lease
[ -s {quote(base)}/boot ] || cat /proc/sys/kernel/random/boot_id > {quote(base)}/boot 2>/dev/null
if [ ! -s {quote(base)}/watchdog ]; then
  ( trap '' HUP; exec sh -c {quote(_watchdog(base, lease))} ) </dev/null >/dev/null 2>&1 &
  echo $! > {quote(base)}/watchdog
fi
if ! mkdir {quote(directory)} 2>/dev/null; then
  [ -s {quote(directory)}/pid ] && {{ cat {quote(directory)}/pid; exit 0; }}
  printf 'wirespeed: %s exists without a pid\n' {quote(directory)} >&2
  exit 91
fi
cd {quote(directory)} || exit 92
printf '%s\n' {quote(argv[0])} > cmd
set -- {shlex.join(argv)}
(
  trap '' HUP
  "$@" </dev/null >out 2>err &
  echo $! > pid.new
  mv pid.new pid
  wait $!
  echo $? > status.new
  mv status.new status
) </dev/null >/dev/null 2>&1 &
n=0
while [ ! -s pid ]; do
  n=$((n + 1))
  [ $n -gt 100000 ] && {{ printf 'wirespeed: no pid for %s\n' {quote(argv[0])} >&2; exit 93; }}
done
cat pid
"""


@dataclass(frozen=True)
class Watched:
    """A program the poller follows: its number and how much of out/err it has read."""

    number: int
    out_offset: int
    err_offset: int


def poll(base: str, watched: Sequence[Watched], boundary: str, forget: Sequence[int] = ()) -> str:
    """For each program: `@@p N STATUS` (STATUS `-` while it runs, `gone` once its
    directory is: the watchdog or a reboot removed the session), its new stdout, the
    boundary line, its new stderr, the boundary line. The status is read before the
    output, so once a status is seen, everything the program wrote has been read.

    forget: programs whose end and output were read already; their files go (a device's
    /tmp is RAM)."""
    lines = [f"base={quote(base)}", ': > "$base/lease"']
    lines += [f'rm -rf "$base/{int(number)}"' for number in forget]
    for item in watched:
        d = f'"$base/{item.number}"'
        lines.append(
            f"st=-; [ -d {d} ] || st=gone; [ -f {d}/status ] && read -r st < {d}/status; "
            f"printf '@@p {item.number} %s\\n' \"$st\"; "
            f"tail -c +{item.out_offset + 1} {d}/out 2>/dev/null; "
            f"printf '\\n{boundary}\\n'; "
            f"tail -c +{item.err_offset + 1} {d}/err 2>/dev/null; "
            f"printf '\\n{boundary}\\n'"
        )
    return "\n".join(lines) + "\n"


def signal(base: str, number: int, pid: int, name: str) -> str:
    """Signal a program only while it has not been reaped: until its status is written
    its PID cannot have been reused by a stranger."""
    d = quote(f"{base}/{number}")
    return f"[ -f {d}/status ] || kill -{name} {pid} 2>/dev/null; :\n"


def close(base: str) -> str:
    """End the session: its watchdog, then its programs, then its directory."""
    return f"""\
w=$(cat {quote(base)}/watchdog 2>/dev/null)
[ -n "$w" ] && kill -TERM "$w" 2>/dev/null
{_kill_session(base)}"""


def sweep(root: str = WORK_ROOT) -> str:
    """Clean what sessions whose wirespeed and watchdog are both gone left behind (a
    device rebooted mid-run keeps no processes, but /tmp may survive on some boards)."""
    return f"""\
for w in {quote(root)}/*/watchdog; do
  [ -f "$w" ] || continue
  kill -0 "$(cat "$w")" 2>/dev/null && continue
  base=${{w%/watchdog}}
  # After a reboot the PIDs recorded there belong to strangers: only remove the files.
  [ "$(cat "$base/boot" 2>/dev/null)" = "$(cat /proc/sys/kernel/random/boot_id 2>/dev/null)" ] ||
    {{ rm -rf "$base"; continue; }}
  for p in "$base"/*/pid; do
    [ -f "$p" ] || continue
    d=${{p%/pid}}
    [ -f "$d/status" ] || kill -KILL "$(cat "$p")" 2>/dev/null
  done
{_REMOVE_BASE}done
:
"""
