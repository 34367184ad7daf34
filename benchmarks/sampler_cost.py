"""What the sampler costs the device: CPU time of its whole process tree, as % of one core,
at 1 Hz and 10 Hz, under dash+mawk and under busybox alone, next to sysstat's sadc.

    .venv/bin/python -m benchmarks.sampler_cost --seconds 30 --rounds 3 [--pooled 10]

Each configuration runs `--rounds` times for seconds/rounds, the configurations taking
turns (in a rotating order), so a slow minute of the machine does not land on one of
them. Each round also starts the configuration once and stops it as soon as it wrote
its first sample: that run's CPU is the cost of starting and stopping
(`startup_cpu_ms`), and the difference between the two runs, over the difference of
their lengths, the cost of running on (`steady_cpu_pct`), which no trial length
dilutes. `cpu_pct_of_one_core` is the long runs' whole CPU over their whole time, start
included, as a trial of that length pays it.

The CPU time is the kernel's own account of every process of the tree, short-lived ones
included: this process makes itself the subreaper of everything it starts, so
orphans come back to it, and after the tree is reaped getrusage(RUSAGE_CHILDREN) holds
the user and system time of all of them. The output is read by a thread of this process
(its CPU is not the tree's), as a pipe over SSH would read it. Root is not needed.

--pooled N also runs each sampler configuration as a run uses it (sampling/pool.py):
one sampler for N trials of seconds/rounds each, cut into a segment per trial (SIGUSR1,
SIGUSR2), 0.5 s apart; its whole CPU (start, segments, gaps, stop) over the trials' time.

sadc (sysstat) takes whole seconds only: 1 s is the smallest interval it accepts, so it
is measured at 1 s, and what it would cost at 10 Hz is given as ten times its cost per
sample, an extrapolation, labelled so.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import resource
import shutil
import signal
import statistics
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from benchmarks.common import emit
from wirespeed.sampling.script import sampler_argv

PR_SET_CHILD_SUBREAPER = 36
SADC_PATHS = ("/usr/lib/sysstat/sadc", "/usr/lib64/sa/sadc", "/usr/libexec/sysstat/sadc")


@dataclass(frozen=True)
class Config:
    name: str
    argv: list[str]
    env: dict[str, str]
    samples_per_s: float
    first_sample: bytes = b"\n@@end 1\n"  # output that shows the first sample is out


@dataclass
class Measured:
    cpu_s: float = 0.0
    wall_s: float = 0.0
    output_bytes: int = 0


def _subreaper() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _reap_all() -> None:
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


def _spawn(config: Config) -> tuple[int, int]:
    """The configuration started in a session of its own, stdin /dev/null: its PID and
    the reading end of its stdout."""
    read_end, write_end = os.pipe()
    pid = os.posix_spawnp(
        config.argv[0],
        config.argv,
        config.env,
        file_actions=[
            (os.POSIX_SPAWN_DUP2, write_end, 1),
            (os.POSIX_SPAWN_OPEN, 0, "/dev/null", os.O_RDONLY, 0),
        ],
        setsid=True,
    )
    os.close(write_end)
    return pid, read_end


def _reap_tree(pid: int) -> None:
    """Reap what is left of the tree of `pid` (its top process already reaped)."""
    # The rest of the tree ends within one interval of its top process; a straggler
    # after five seconds is a bug worth seeing, so it is killed and counted anyway.
    end = time.monotonic() + 5
    while True:
        try:
            child, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if child == 0:
            if time.monotonic() > end:
                os.killpg(pid, signal.SIGKILL)
            time.sleep(0.01)


def measure(config: Config, seconds: float | None) -> Measured:
    """Run one configuration for `seconds` (None: until its first sample is out), stop
    it as the session stops a sampler (SIGTERM to the top process), and account the
    whole tree."""
    _reap_all()
    before = _children_cpu()
    started = time.monotonic()
    pid, read_end = _spawn(config)
    received = bytearray()
    first = threading.Event()

    def drain() -> None:
        while chunk := os.read(read_end, 65536):
            if not first.is_set():
                received.extend(chunk)
                if config.first_sample in received:
                    first.set()
            else:
                received.extend(b"." * len(chunk))  # only its length counts from here
        first.set()

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    if seconds is None:
        first.wait(10)
    else:
        time.sleep(seconds)
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        time.sleep(0.01)
    else:
        os.killpg(pid, signal.SIGKILL)
    wall = time.monotonic() - started
    _reap_tree(pid)
    reader.join(5)
    os.close(read_end)
    return Measured(_children_cpu() - before, wall, len(received))


def measure_pooled(config: Config, trials: int, seconds: float, gap: float) -> Measured:
    """A run's worth of trials from one sampler, as SamplerPool takes them: the sampler
    starts with the first trial; each trial ends its segment (SIGUSR2 to the process
    group) and, after `gap` seconds, the next begins one (SIGUSR1); after the last, the
    sampler is stopped. Accounted as measure() does: the whole tree, start, segments,
    the gaps between them and the stop; its wall time is the trials' time only."""
    _reap_all()
    before = _children_cpu()
    pid, read_end = _spawn(config)
    seen = {"ticks": 0, "exits": 0, "bytes": 0}
    changed = threading.Condition()

    def drain() -> None:
        tail = b""
        while chunk := os.read(read_end, 65536):
            text = tail + chunk
            with changed:
                seen["ticks"] += text.count(b"\n@@end ")
                seen["exits"] += text.count(b"\n@@exit ")
                seen["bytes"] += len(chunk)
                changed.notify_all()
            tail = text[-8:]  # a marker split between two reads is counted once
        with changed:
            seen["exits"] = 1 << 30
            changed.notify_all()

    def wait_for(key: str, count: int) -> None:
        with changed:
            changed.wait_for(lambda: seen[key] >= count, timeout=10)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    for trial in range(trials):
        if trial:
            time.sleep(gap)
            ticks = seen["ticks"]
            os.killpg(pid, signal.SIGUSR1)
            wait_for("ticks", ticks + 1)
        else:
            wait_for("ticks", 1)
        time.sleep(seconds)
        os.killpg(pid, signal.SIGUSR2)
        wait_for("exits", trial + 1)
    os.kill(pid, signal.SIGTERM)
    os.waitpid(pid, 0)
    _reap_tree(pid)
    reader.join(5)
    os.close(read_end)
    return Measured(_children_cpu() - before, trials * seconds, seen["bytes"])


def _bin_dir(root: Path, name: str, tools: dict[str, str]) -> str:
    directory = root / name
    directory.mkdir()
    for tool, target in tools.items():
        (directory / tool).symlink_to(target)
    return str(directory)


def configs(tmp: Path, script: str | None) -> list[Config]:
    result: list[Config] = []

    def sampler_argv_of(interval: float) -> list[str]:
        argv = sampler_argv(interval, "/", max_runtime=3600)
        if script is not None:
            argv[2] = script
        return argv

    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C"}
    for hz in (1, 10):
        argv = sampler_argv_of(1 / hz)
        # With bash or busybox on PATH, a dash host ticks with their `read -t`.
        result.append(Config(f"sampler sh={_shell_name()} {hz} Hz", argv, env, hz))
        # Without them: a sleep per tick.
        plain = {
            tool: path
            for tool in ("sh", "awk", "cat", "sleep", "date", "kill")
            if (path := shutil.which(tool)) is not None
        }
        plain_path = _bin_dir(tmp, f"plain-{hz}", plain)
        result.append(
            Config(
                f"sampler sh={_shell_name()} without bash/busybox {hz} Hz",
                argv,
                {**env, "PATH": plain_path},
                hz,
            )
        )
    busybox = shutil.which("busybox")
    if busybox is not None:
        applets = os.popen(f"{busybox} --list").read().split()
        path = _bin_dir(tmp, "busybox", {applet: busybox for applet in [*applets, "busybox"]})
        for hz in (1, 10):
            argv = sampler_argv_of(1 / hz)
            argv[0] = busybox
            argv.insert(1, "sh")
            result.append(Config(f"sampler busybox {hz} Hz", argv, {"PATH": path}, hz))
    sadc = next((path for path in SADC_PATHS if os.access(path, os.X_OK)), None)
    if sadc is not None:
        # Without an output file sadc writes its binary records to stdout.
        # Its first record follows the file header at once: any output will do.
        result.append(Config("sadc 1 s (default activities)", [sadc, "1"], env, 1, b""))
        result.append(Config("sadc -S ALL 1 s", [sadc, "-S", "ALL", "1"], env, 1, b""))
    return result


def _shell_name() -> str:
    sh = shutil.which("sh")
    return Path(os.path.realpath(sh)).name if sh else "sh"


def _steady_pct(long: Measured, short: Measured) -> float:
    """% of a core the configuration costs while it runs on: the long run's CPU beyond
    the short one's, over the time beyond it."""
    return 100 * (long.cpu_s - short.cpu_s) / (long.wall_s - short.wall_s)


def _row(config: Config, longs: list[Measured], shorts: list[Measured]) -> dict[str, object]:
    cpu_s = sum(m.cpu_s for m in longs)
    wall_s = sum(m.wall_s for m in longs)
    pct = 100 * cpu_s / wall_s
    steady = sorted(_steady_pct(long, short) for long, short in zip(longs, shorts, strict=True))
    startup = sorted(1000 * m.cpu_s for m in shorts)
    row: dict[str, object] = {
        "config": config.name,
        "argv0": config.argv[0],
        "wall_s": round(wall_s, 2),
        "cpu_s": round(cpu_s, 3),
        "cpu_pct_of_one_core": round(pct, 3),
        "cpu_pct_per_round": [round(100 * m.cpu_s / m.wall_s, 3) for m in longs],
        "steady_cpu_pct": round(statistics.median(steady), 3),
        "steady_cpu_pct_range": [round(steady[0], 3), round(steady[-1], 3)],
        "startup_cpu_ms": round(statistics.median(startup), 1),
        "startup_cpu_ms_range": [round(startup[0], 1), round(startup[-1], 1)],
        "cpu_ms_per_sample": round(10 * pct / config.samples_per_s, 3),
        "output_bytes_per_s": round(sum(m.output_bytes for m in longs) / wall_s),
    }
    if config.name.startswith("sadc"):
        row["cpu_pct_at_10_hz_extrapolated"] = round(pct * 10 / config.samples_per_s, 3)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0, help="per configuration")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", default="", help="run configurations whose name has this")
    parser.add_argument(
        "--script", type=Path, help="another sampler.sh to measure (an older version, say)"
    )
    parser.add_argument(
        "--pooled",
        type=int,
        default=0,
        metavar="TRIALS",
        help="also measure each sampler as a run's SamplerPool uses it: TRIALS trials of "
        "seconds/rounds s each from one sampler, 0.5 s apart",
    )
    args = parser.parse_args()
    _subreaper()
    with tempfile.TemporaryDirectory() as tmp:
        script = args.script.read_text() if args.script is not None else None
        todo = [config for config in configs(Path(tmp), script) if args.only in config.name]
        longs: dict[str, list[Measured]] = {config.name: [] for config in todo}
        shorts: dict[str, list[Measured]] = {config.name: [] for config in todo}
        for round_ in range(args.rounds):
            shift = round_ % len(todo)
            for config in todo[shift:] + todo[:shift]:
                shorts[config.name].append(measure(config, None))
                longs[config.name].append(measure(config, args.seconds / args.rounds))
        pooled: dict[str, list[float]] = {}
        trial_seconds = args.seconds / args.rounds
        for config in todo if args.pooled else []:
            # (Not the fallback that forks a `sleep` per tick: its ticks are its cost.)
            if config.name.startswith("sampler") and "without" not in config.name:
                runs = [measure_pooled(config, args.pooled, trial_seconds, 0.5) for _ in range(2)]
                pooled[config.name] = [round(100 * m.cpu_s / m.wall_s, 3) for m in runs]
    emit(
        "sampler_cost",
        {
            "cpus": os.cpu_count(),
            "seconds_per_config": args.seconds,
            "rounds": args.rounds,
            "script": str(args.script) if args.script is not None else "shipped",
            "results": [_row(c, longs[c.name], shorts[c.name]) for c in todo],
            # CPU of a run of --pooled trials from one sampler, as % of one core over the
            # trials' time: two runs each.
            **(
                {
                    "pooled": {
                        "trials": args.pooled,
                        "trial_seconds": trial_seconds,
                        "cpu_pct_of_one_core": pooled,
                    }
                }
                if pooled
                else {}
            ),
        },
    )


if __name__ == "__main__":
    main()
