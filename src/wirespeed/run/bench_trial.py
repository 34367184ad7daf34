"""Run one benchmark trial on one host: openssl speed, 7-zip, UnixBench.

find the program → read the host's CPUs → note whether it was busy → start the sampler →
run the driver's commands one after the other → stop the sampler → parse each output
into measurements (with its command's labels) → judge findings.

As with a traffic trial, failures become a FAILED outcome with the reason, never an
exception (KeyboardInterrupt and SIGTERM pass through after the process is stopped),
and every command's raw output is kept so parsing can be redone.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from wirespeed.errors import MissingToolError, WirespeedError
from wirespeed.hosts.base import Host, Process
from wirespeed.model import (
    Finding,
    Measurement,
    RawOutput,
    Side,
    Trial,
    TrialOutcome,
)
from wirespeed.run.trial_life import (
    TrialFailure,
    TrialLife,
    Watching,
    both_streams,
    live_trial,
    raw_output,
)
from wirespeed.sampling.session import SamplerSource
from wirespeed.tools.bench import (
    BenchDriver,
    BenchParseError,
    Command,
    HostCpus,
    benchmark_of,
    with_labels,
)

POLL = 0.05
# Run in the command's directory without a shell string built from its name: the
# directory is sh's $1, never part of the script.
_IN_DIRECTORY = 'cd "$1" || exit 127; shift; exec "$@"'


def find_program(host: Host, driver: BenchDriver, options: dict[str, object]) -> str:
    """The first of the driver's programs that the host has; MissingToolError naming
    where to get it otherwise. UnixBench's ./Run is looked for in its directory."""
    directory = options.get("directory")
    for program in driver.PROGRAMS:
        if isinstance(directory, str) and program.startswith("./"):
            found = host.run(["test", "-x", f"{directory.rstrip('/')}/{program[2:]}"], timeout=10)
            if found.returncode == 0:
                return program
            continue
        if host.which(program) is not None:
            return program
    shown = " or ".join(driver.PROGRAMS)
    if isinstance(directory, str):
        shown = f"{shown} in {directory}"
    raise MissingToolError(shown, host.name, driver.PACKAGES)


def host_cpus(host: Host) -> tuple[HostCpus, list[Finding]]:
    """The host's online CPUs and clusters (facts/cpus.py), whether it has taskset; and
    whether its clusters reach the clock its SoC is sold at (analysis/bench_findings.py)."""
    from wirespeed.analysis.bench_findings import judge_clock
    from wirespeed.facts.advertised import read_compatible
    from wirespeed.facts.cpus import read_clusters
    from wirespeed.facts.read import HostSource

    source = HostSource(host)
    clusters, count, _ = read_clusters(source)
    names = tuple(_cluster_name(c.core, c.cpus) for c in clusters)
    cpus = HostCpus(
        count=count or max(1, sum(len(c.cpus) for c in clusters)),
        clusters=tuple(c.cpus for c in clusters),
        cluster_names=names,
        has_taskset=host.which("taskset") is not None,
    )
    return cpus, judge_clock(clusters, read_compatible(source), host.name)


def _cluster_name(core: str | None, cpus: Sequence[int]) -> str:
    span = f"cpu{cpus[0]}" if len(cpus) == 1 else f"cpu{cpus[0]}-{cpus[-1]}"
    if len(cpus) > 1 and list(cpus) != list(range(cpus[0], cpus[-1] + 1)):
        span = "cpu" + ",".join(str(c) for c in cpus)
    return f"{core} ({span})" if core else span


def tool_version(host: Host, driver: BenchDriver, program: str) -> str | None:
    argv = driver.version_argv(program)
    if argv is None:
        return None
    try:
        done = host.run(list(argv), timeout=10.0)
    except (OSError, TimeoutError, WirespeedError):
        return None
    return driver.parse_version(done.stdout + done.stderr)


def run_bench_trial(
    trial: Trial,
    host: Host,
    *,
    on_tick: Callable[[float], None] | None = None,
    watch: Sequence[tuple[str, Host]] = (),
    sample_interval: float = 1.0,
    samplers_from: SamplerSource | None = None,
    before_start: Callable[[Host], list[Finding]] | None = None,
    notice: Callable[[str], None] | None = None,
) -> TrialOutcome:
    """Run a benchmark trial on `host` to its outcome (see the module's docstring).
    `before_start` judges, just before the first command, whether the host was already
    busy; `watch` are the hosts to sample meanwhile (the benchmark's own host)."""
    benchmark = benchmark_of(trial.test)
    if benchmark is None:
        raise ValueError(f"trial {trial.key} is not a benchmark")
    driver, bench = benchmark
    body = Benchmark(trial, host, driver, bench.as_dict(), on_tick, before_start, notice)
    return live_trial(trial, body, Watching(watch, sample_interval, samplers_from))


@dataclass
class Benchmark:
    """A benchmark trial's own steps: its program found, its commands run one after the
    other, each one's figures kept."""

    trial: Trial
    host: Host
    driver: BenchDriver
    options: dict[str, object]
    on_tick: Callable[[float], None] | None
    before_start: Callable[[Host], list[Finding]] | None
    notice: Callable[[str], None] | None
    raw: list[RawOutput] = field(default_factory=list)
    measurements: list[Measurement] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    version: str | None = None
    running: Process | None = None

    def run(self, life: TrialLife) -> None:
        host, driver, options = self.host, self.driver, self.options
        program = find_program(host, driver, options)
        self.version = tool_version(host, driver, program)
        cpus, clock_findings = host_cpus(host)
        self.findings += clock_findings
        commands = driver.commands(options, program, cpus, version=self.version)
        if self.notice is not None:
            for said in driver.notices(options, cpus, self.version):
                self.notice(f"{self.trial.test.id} on {host.name}: {said}")
        if self.before_start is not None:
            self.findings += self.before_start(host)
        life.watch()
        begun = time.monotonic()
        for command in commands:
            self.running = host.start(_argv(command))
            status = _wait(self.running, command, begun, self.on_tick)
            self.raw.append(raw_output(host, Side.DEVICE, self.running, status))
            self.running = None
            if status != 0:
                raise TrialFailure(_exit_reason(self.raw[-1], status))
            try:
                # Both streams: a tool's error line (openssl's "Unknown algorithm") is on
                # stderr, and the parser quotes it when it finds no figure.
                parsed = driver.parse(both_streams(self.raw[-1]))
            except BenchParseError as error:
                raise TrialFailure(str(error)) from None
            self.measurements += [
                m for m in with_labels(parsed, command.labels) if command.keeps(m)
            ]

    def stop(self) -> None:
        if self.running is not None:
            status = self.running.stop()
            self.raw.append(raw_output(self.host, Side.DEVICE, self.running, status))

    def outcome(self, life: TrialLife) -> TrialOutcome:
        result = life.figures(self.measurements, self.version)
        return life.outcome(
            result=result, raw=self.raw, findings=self.findings, workload=self.driver.WORKLOAD
        )


def _argv(command: Command) -> list[str]:
    if command.cwd is None:
        return list(command.argv)
    return ["sh", "-c", _IN_DIRECTORY, "sh", command.cwd, *command.argv]


def _wait(
    process: Process, command: Command, begun: float, on_tick: Callable[[float], None] | None
) -> int:
    deadline = time.monotonic() + command.timeout
    while True:
        status = process.poll()
        if status is not None:
            return status
        now = time.monotonic()
        if now > deadline:
            process.stop()
            raise TrialFailure(
                f"{command.argv[0]} did not finish within {command.timeout:.0f} s and was "
                "stopped: the device may be far slower than expected, or hung"
            )
        if on_tick is not None:
            on_tick(now - begun)
        time.sleep(POLL)


def _exit_reason(raw: RawOutput, status: int) -> str:
    said = [line for line in (raw.stderr or raw.text).strip().splitlines() if line.strip()]
    detail = f": {said[-1].strip()}" if said else ""
    program = raw.argv[0] if raw.argv[0] != "sh" else raw.argv[5]
    return f"{program} exited with status {status}{detail}"
