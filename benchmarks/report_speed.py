"""Report speed: load a stored run of 10,000 trials with intervals, build the report and
render it to every format; the goal is <= 2 s per format (load + build + render). As
`wirespeed report` does, only JSON and HTML load the interval series, left packed as the
store keeps them. Also the size of the HTML page of a 50-trial run. No root, no devices.

Every trial carries what a real one stores besides its result: the device's samples (a
real sampler stream of this machine, taken at 1 Hz for as long as a trial lasts when the
benchmark starts, and its summary) and the tools' raw outputs (iperf's own, from
tests/fixtures). As `wirespeed report` does, the raw outputs are not loaded
(Store.load_run(outputs=False)), and the HTML page draws every trial's device plots.

Every format is measured --repeat times, each time in a process of its own that loads,
builds and renders, as a `wirespeed report` process does (not in the process that wrote
the store, which holds the whole run in memory as well); the figures are the fastest
and slowest of them, as [min, max], since a machine shared with other jobs adds noise.

    uv run --frozen python -m benchmarks.report_speed [--trials 10000] [--intervals 10]
        [--repeat 3] [--formats json,html]
"""

from __future__ import annotations

import argparse
import gzip
import io
import itertools
import json
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from rich.console import Console

from benchmarks.common import emit
from wirespeed.hosts.local import LocalHost
from wirespeed.model import (
    Direction,
    DirectionResult,
    Flow,
    Interval,
    LinkModel,
    MonitorRecord,
    PathSpec,
    RawOutput,
    Result,
    Side,
    StreamResult,
    TestCase,
    TestSpec,
    Tool,
    Topology,
    Transfer,
    Trial,
    TrialOutcome,
    TrialStatus,
)
from wirespeed.report import Report, build_report, render_csv, render_json
from wirespeed.report.device_samples import device_samples
from wirespeed.report.html import render_html
from wirespeed.report.markdown import render_document_markdown
from wirespeed.report.run_document import run_document
from wirespeed.report.terminal import render_document
from wirespeed.sampling.session import Sampler
from wirespeed.sampling.summary import summarize
from wirespeed.store import RunStatus, Store
from wirespeed.store.records import RunInfo, RunRecord

GBE = LinkModel(name="gbe", rate_bps=1_000_000_000)
PATHS = (
    PathSpec(name="WAN", topology=Topology.ENDPOINT, client="ws", server="dut", link=GBE),
    PathSpec(name="Br0", topology=Topology.BRIDGE, client="lt", server="ws", dut="dut", link=GBE),
)
VARIANTS = ("default", "irq-a72")


def _tests(count: int, duration: float) -> list[TestCase]:
    tests = []
    for n in range(count):
        dual = n % 3 == 2
        spec = TestSpec(
            duration=duration,
            direction=Direction.DUAL if dual else Direction.UP,
            parallel=2 if dual else 1,
        )
        tests.append(
            TestCase(f"#{n + 1}", f"TCP {'dual -P 2' if dual else 'up'}", Tool.IPERF2, spec)
        )
    return tests


def _direction(rng: random.Random, flow: Flow, parallel: int, intervals: int) -> DirectionResult:
    streams = []
    for stream in range(parallel):
        series = tuple(
            Interval(
                start=float(s),
                end=float(s + 1),
                bytes=int(rate / 8),
                bits_per_second=rate,
            )
            for s in range(intervals)
            for rate in (rng.gauss(930e6 / parallel, 5e6),)
        )
        mean = sum(i.bits_per_second for i in series) / intervals
        got = Transfer(bytes=int(mean / 8 * intervals), seconds=intervals, bits_per_second=mean)
        streams.append(StreamResult(id=3 + stream, flow=flow, received=got, intervals=series))
    total = tuple(
        Interval(
            start=parts[0].start,
            end=parts[0].end,
            bytes=sum(p.bytes for p in parts),
            bits_per_second=sum(p.bits_per_second for p in parts),
        )
        for parts in zip(*(s.intervals for s in streams), strict=True)
    )
    mean = sum(i.bits_per_second for i in total) / intervals
    got = Transfer(bytes=int(mean / 8 * intervals), seconds=intervals, bits_per_second=mean)
    return DirectionResult(
        flow=flow, sent=got, received=got, streams=tuple(streams), intervals=total
    )


FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "iperf2"


def _raw_outputs() -> tuple[RawOutput, ...]:
    """The client's and the server's output of a real iperf2 run."""
    return tuple(
        RawOutput(
            host=host,
            side=side,
            argv=("iperf", "-c", "198.18.0.2", "-t", "10", "-i", "1", "-y", "C"),
            format="csv",
            text=(FIXTURES / f"csv-tcp-up.{side.value}.txt").read_text(),
            exit_status=0,
        )
        for host, side in (("ws", Side.CLIENT), ("dut", Side.SERVER))
    )


def _sampled(seconds: int) -> MonitorRecord:
    """What the sampler stores of a trial this long: a real stream of this machine at
    1 Hz (the default), and its summary."""
    print(f"sampling this machine for {seconds} s ...", file=sys.stderr)
    running = Sampler.start(LocalHost(), interval=1.0, max_runtime=seconds + 30)
    running.wait_for_ticks(1)
    time.sleep(seconds)
    samples = running.stop()
    return MonitorRecord(
        host="dut",
        role="dut",
        interval=samples.interval,
        raw=samples.raw,
        summary=summarize(samples).to_json(),
    )


def _outcomes(
    trials: int, intervals: int, tests: int, monitor: MonitorRecord | None = None
) -> list[TrialOutcome]:
    rng = random.Random(1)
    cases = _tests(tests, float(intervals))
    places = [(p, v) for p in PATHS for v in VARIANTS]
    repetitions = -(-trials // (len(cases) * len(places)))  # ceil: stop at `trials`
    outcomes: list[TrialOutcome] = []
    raw = _raw_outputs()
    at = 1_700_000_000.0
    for case in cases:
        for path, variant in places:
            for repetition in range(1, repetitions + 1):
                if len(outcomes) == trials:
                    return outcomes
                directions = tuple(
                    _direction(rng, flow, case.spec.parallel, intervals) for flow in case.spec.flows
                )
                outcomes.append(
                    TrialOutcome(
                        trial=Trial(case, path, variant, repetition),
                        status=TrialStatus.OK,
                        started_at=at,
                        finished_at=at + intervals,
                        result=Result(
                            tool=case.tool,
                            protocol=case.spec.protocol,
                            directions=directions,
                            tool_version="2.0.13",
                        ),
                        raw=raw,
                        monitors=() if monitor is None else (monitor,),
                    )
                )
                at += intervals + 1
    return outcomes


def _store_run(db: Path, outcomes: list[TrialOutcome]) -> int:
    with Store.open(db) as store:
        run_id = store.begin_run(RunInfo(title="report speed", started_at=1_700_000_000.0))
        for outcome in outcomes:
            store.add_outcome(run_id, outcome)
        store.finish_run(run_id, RunStatus.COMPLETE.value, outcomes[-1].finished_at)
    return run_id


def _terminal(report: Report) -> str:
    out = io.StringIO()
    render_document(run_document(report), Console(file=out, width=160, color_system=None))
    return out.getvalue()


def _html(report: Report, record: RunRecord) -> str:
    return render_html(report, device_samples(record))


RENDERERS: dict[str, Callable[[Report, RunRecord], str]] = {
    "terminal": lambda report, _: _terminal(report),
    "markdown": lambda report, _: render_document_markdown(run_document(report)),
    "csv": lambda report, _: render_csv(report),
    "json": lambda report, _: render_json(report),
    "html": _html,
}

# The formats that show interval series, which `wirespeed report` loads for them only,
# and left packed (Store.load_run(intervals="packed")): as in cli/commands/report.py.
WITH_INTERVALS = ("json", "html")


def _timed(db: Path, run_id: int, name: str) -> dict[str, float]:
    """Load, build and render one format as `wirespeed report` does: seconds of each,
    of the clock and of the process's CPU time (on a machine shared with other jobs the
    clock also counts the time they took the CPU), and the output's size in bytes."""
    clocks: list[tuple[float, float]] = []

    def tick() -> None:
        clocks.append((time.perf_counter(), time.process_time()))

    with Store.open(db, read_only=True) as store:  # as the reading commands open it
        tick()
        intervals: Literal["packed"] | bool = "packed" if name in WITH_INTERVALS else False
        record = store.load_run(run_id, intervals=intervals, outputs=False, commands=name == "json")
        tick()
    report = build_report(record)
    tick()
    text = RENDERERS[name](report, record)
    tick()
    measured: dict[str, float] = {"bytes": len(text.encode())}
    steps = ("load", "build", "render")
    for step, (begin, end) in zip(steps, itertools.pairwise(clocks), strict=True):
        measured[step] = end[0] - begin[0]
        measured[f"{step}_cpu"] = end[1] - begin[1]
    return measured


def _timed_apart(db: Path, run_id: int, name: str) -> dict[str, float]:
    """_timed in a fresh process."""
    argv = [sys.executable, "-m", "benchmarks.report_speed", "--measure", name]
    argv += ["--db", str(db), "--run", str(run_id)]
    done = subprocess.run(argv, capture_output=True, text=True, check=True)
    measured: dict[str, float] = json.loads(done.stdout)
    return measured


def _range(values: list[float]) -> list[float]:
    return [round(min(values), 3), round(max(values), 3)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--trials", type=int, default=10_000)
    parser.add_argument("--intervals", type=int, default=10, help="1-s intervals per trial")
    parser.add_argument("--tests", type=int, default=25)
    parser.add_argument("--repeat", type=int, default=3, help="measurements per format")
    parser.add_argument(
        "--formats",
        default=",".join(RENDERERS),
        help="the formats to measure, comma-separated (default: all)",
    )
    # One measurement of a stored run, in the process _timed_apart starts.
    parser.add_argument("--measure", choices=RENDERERS, help=argparse.SUPPRESS)
    parser.add_argument("--db", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--run", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(_timed(args.db, args.run, args.measure)))
        return
    formats = [name for name in args.formats.split(",") if name]
    unknown = sorted(set(formats) - set(RENDERERS))
    if unknown or not formats:
        parser.error(f"--formats: choose from {', '.join(RENDERERS)} (not {unknown or 'none'})")

    steps = ("load", "build", "render")
    times: dict[str, dict[str, list[float]]] = {
        name: {key: [] for step in (*steps, "total") for key in (step, f"{step}_cpu")}
        for name in formats
    }
    sizes: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.db"
        monitor = _sampled(args.intervals)
        outcomes = _outcomes(args.trials, args.intervals, args.tests, monitor)
        begin = time.perf_counter()
        run_id = _store_run(db, outcomes)
        stored = time.perf_counter() - begin
        stored_bytes = db.stat().st_size
        trials = len(outcomes)
        del outcomes
        # A writer (run, import) checks the whole file first (PRAGMA quick_check); a
        # reader (runs, report) opens it read-only without the check.
        opened: dict[str, list[float]] = {"writer": [], "reader": []}
        for _ in range(args.repeat):
            for role, read_only in (("writer", False), ("reader", True)):
                begin = time.perf_counter()
                Store.open(db, read_only=read_only).close()
                opened[role].append(time.perf_counter() - begin)
        for _ in range(args.repeat):
            for name in formats:  # interleaved: a noisy moment hits every format alike
                measured = _timed_apart(db, run_id, name)
                for suffix in ("", "_cpu"):
                    for step in steps:
                        times[name][step + suffix].append(measured[step + suffix])
                    total = sum(measured[step + suffix] for step in steps)
                    times[name]["total" + suffix].append(total)
                sizes[name] = int(measured["bytes"])

    # 5 tests x 2 paths x 2 variants, up to 3 repetitions, of 30 s each
    few = _outcomes(50, 30, 5, _sampled(30))
    fifty = RunRecord(
        id=1,
        info=RunInfo(title="fifty trials", started_at=few[0].started_at),
        status=RunStatus.COMPLETE,
        finished_at=few[-1].finished_at,
        outcomes=tuple(few),
    )
    small = build_report(fifty)
    page = _html(small, fifty).encode()
    emit(
        "report_speed",
        {
            "trials": trials,
            "intervals_per_trial": args.intervals,
            "device_samples_per_trial": f"{args.intervals} s at 1 Hz: stream of "
            f"{len(monitor.raw)} bytes, summary of {len(monitor.summary)} bytes",
            "repeat": args.repeat,
            "store_seconds": round(stored, 2),
            "store_bytes": stored_bytes,
            "open_seconds": {role: _range(values) for role, values in opened.items()},
            # Per format: [fastest, slowest] of the repetitions, in seconds of the clock,
            # and (*_cpu) of the measuring process's CPU time.
            "seconds": {
                name: {key: _range(values) for key, values in measured.items()}
                for name, measured in times.items()
            },
            "total_seconds": {name: _range(measured["total"]) for name, measured in times.items()},
            "total_cpu_seconds": {
                name: _range(measured["total_cpu"]) for name, measured in times.items()
            },
            "output_bytes": sizes,
            "goal_seconds": 2.0,
            "html_50_trials": {
                "trials": len(small.trials),
                "intervals_per_trial": 30,
                "bytes": len(page),
                "gzip_bytes": len(gzip.compress(page)),
            },
        },
    )


if __name__ == "__main__":
    main()
