"""Paths of the sampling fixtures, and a way to run the real sampler on a fake tree."""

from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path

from wirespeed.sampling.script import sampler_argv

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
PROC = FIXTURES / "proc"
THIS_MACHINE = PROC / "x86-vm-2cpu"
R4S_BOARD = FIXTURES / "boards" / "r4s-sampling"


def proc_text(name: str) -> str:
    return (PROC / name).read_text()


def run_sampler(
    root: Path, seconds: float, interval: float = 0.2, shell: str = "sh", path: str | None = None
) -> str:
    """The sampler's output after it ran for `seconds` under `shell`: stopped by its
    own max runtime, so the test also proves that it ends by itself."""
    argv = sampler_argv(interval, str(root), max_runtime=seconds)
    argv[0] = shell
    env = {"PATH": path} if path is not None else None
    completed = subprocess.run(
        argv, capture_output=True, text=True, timeout=seconds + 10, env=env, check=False
    )
    assert completed.returncode == 0, completed.stderr
    return completed.stdout


BUSYBOX = shutil.which("busybox")

# busybox sh as OpenWrt builds it, without FEATURE_SH_READ_FRAC: `read -t` takes whole
# seconds and answers a fraction as busybox does ("read: invalid timeout", status 2).
# The function runs before the script, so the script's own `read` is this one.
_WHOLE_SECONDS_READ = """read() {
	_ws_next=
	for _ws_arg; do
		if [ -n "$_ws_next" ]; then
			case $_ws_arg in *.*) echo "sh: read: invalid timeout" >&2; return 2 ;; esac
		fi
		_ws_next=
		[ "$_ws_arg" = -t ] && _ws_next=1
	done
	command read "$@"
}
"""


def _script(path: Path, text: str) -> None:
    path.write_text(text)
    path.chmod(0o755)


def busybox_path(directory: Path, *, whole_seconds: bool = False) -> str:
    """A PATH of busybox applets only: no GNU tools, no bash, no mawk. whole_seconds:
    as OpenWrt builds busybox (no FEATURE_SH_READ_FRAC, no FLOAT_DURATION), neither
    `read -t` nor `sleep` takes a fraction of a second."""
    assert BUSYBOX is not None
    directory.mkdir()
    applets = subprocess.run(
        [BUSYBOX, "--list"], capture_output=True, text=True, check=True
    ).stdout.split()
    for applet in [*applets, "busybox"]:
        (directory / applet).symlink_to(BUSYBOX)
    if whole_seconds:
        for name in ("sh", "busybox", "sleep"):
            (directory / name).unlink()
        read = shlex.quote(_WHOLE_SECONDS_READ)
        _script(
            directory / "sh",
            f'#!{BUSYBOX} sh\nif [ "$1" = -c ]; then\n\tshift\n\tscript=$1\n\tshift\n'
            f'\texec {BUSYBOX} sh -c {read}"$script" "$@"\nfi\nexec {BUSYBOX} sh "$@"\n',
        )
        _script(
            directory / "busybox",
            f'#!{BUSYBOX} sh\nif [ "$1" = sh ]; then\n\tshift\n'
            f'\texec {shlex.quote(str(directory / "sh"))} "$@"\nfi\nexec {BUSYBOX} "$@"\n',
        )
        _script(
            directory / "sleep",
            f"#!{BUSYBOX} sh\n"
            "case $1 in *.*) echo \"sleep: invalid number '$1'\" >&2; exit 1 ;; esac\n"
            f'exec {BUSYBOX} sleep "$@"\n',
        )
    return str(directory)
