"""Run one forwarding-rate search trial: per frame size and direction, a search of trials
of paced UDP through the path (iperf2 `-b Npps`, or tcpreplay's raw frames `--pps`:
search_generators.py), each counted at the receiver. Each of those trials at one load is
search_load.py's, the hosts' counters around it search_counters.py's.

tcpreplay receives nothing: its trials count what arrived with the receiver's counters
(the namespaces' UDP counters in the lab, else its interfaces'), and what was sent by
tcpreplay's own account, cross-checked with the sender's interfaces as iperf's is.
Several streams (`cpus:`) and several senders (`senders:`) share a direction's load;
their counts are summed, every host's counters read once.

iperf numbers its datagrams, so its count of the lost ones is exact, except that it
also counts what reached its host and its socket then dropped (a receiver on a busy
machine). In the lab, whose namespaces carry nothing else, the receiver's UDP counters
(/proc/net/snmp) say how many those were, and they are added back: the device did
forward them. On real hosts, which carry other UDP traffic, iperf's count stands.

Every host's network interfaces (/proc/net/dev) cross-check both ends, in the lab and on
real hosts alike: packets that never left the sender's interfaces were dropped in its
own queue and were not offered to the device (the trial counts what left, and so is
generator-limited, never the device's loss); iperf counting more received than came in
at the receiver's interfaces is a count that cannot be trusted, and is said so.

One wirespeed trial is the whole test (every frame size and direction); its result holds
each cell's measurements (search/measurements.py), and its raw outputs each cell's search
log (search/log.py) and the iperf outputs of every trial. Whatever happens, every process
its trials start is stopped before this returns or raises; a cell that fails ends the trial
with the reason, the cells already searched kept. What is cheap is checked for every
direction before the first search (its legs, that it carries traffic at all); a search
whose every trial was generator-limited, or that found no bound at all, fails the trial.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from wirespeed.hosts.base import Host
from wirespeed.model import (
    Finding,
    FindingKind,
    Measurement,
    Proto,
    RawOutput,
    Result,
    Side,
    Tool,
    Trial,
    TrialOutcome,
)
from wirespeed.plan.forwarding import ForwardingOptions, ratio_of
from wirespeed.run import search_generators as generators
from wirespeed.run.search_generators import FrameJournal
from wirespeed.run.search_legs import Leg, SearchPath
from wirespeed.run.search_load import Cell, Sending, measurer, trial_at
from wirespeed.run.trial_life import (
    TrialFailure,
    TrialLife,
    Watching,
    live_trial,
)
from wirespeed.sampling.session import SamplerSource
from wirespeed.search.frames import frames_per_second
from wirespeed.search.log import SearchLog, to_json
from wirespeed.search.measurements import measurements_of
from wirespeed.search.model import (
    Goal,
    SearchLimits,
    SearchResult,
)

# Before the search: a short trial at a low load must arrive, or the path is broken
# (a wrong address, a missing port forward) and every search trial would say "all lost".
REACHABILITY_LOAD = 1000
REACHABILITY_SECONDS = 0.5
REACHABILITY_SHARE = 0.5
# iperf's own count and the hosts' UDP counters may differ by iperf's final datagram and
# its repeats; beyond this they disagree.
COUNTER_SLACK_PACKETS = 20
COUNTER_SLACK_SHARE = 0.001

Search = Callable[..., SearchResult]  # mlrsearch(measure, goals, limits, progress=...)


def goals_of(options: ForwardingOptions, final: float) -> tuple[Goal, ...]:
    return tuple(
        Goal(
            name=goal.name,
            loss_ratio=ratio_of(goal.loss),
            exceed_ratio=goal.exceed_ratio,
            final_duration=final,
            duration_sum=options.duration_sum,
            width=ratio_of(options.width),
        )
        for goal in options.goals
    )


def search_limits(options: ForwardingOptions, ceiling: float | None) -> SearchLimits:
    """The loads to search between: up to the link's frame rate at this size (per leg:
    a link is full duplex, so each direction has its own) or the plan's max_rate."""
    top = options.max_rate if options.max_rate is not None else ceiling
    assert top is not None, "checked by the plan: a path without a link needs max_rate"
    if ceiling is not None:
        top = min(top, ceiling)
    return SearchLimits(
        max_load=top,
        min_load=min(options.min_rate, top / 2),
        initial_duration=options.initial_duration,
        max_trials=options.max_trials,
    )


def run_search_trial(
    trial: Trial,
    path: SearchPath,
    *,
    search: Search,
    on_tick: Callable[[float], None] | None = None,
    on_step: Callable[[str], None] | None = None,
    watch: Sequence[tuple[str, Host]] = (),
    sample_interval: float = 1.0,
    samplers_from: SamplerSource | None = None,
    frames: FrameJournal | None = None,
) -> TrialOutcome:
    """Search every frame size and direction of the test; failures become a FAILED
    outcome (with what was measured before), never an exception, but KeyboardInterrupt
    and SIGTERM pass through after the processes are stopped. tcpreplay's frame files
    are journaled in `frames` (search_generators.py)."""
    options = trial.test.settings_as(ForwardingOptions)
    goals = goals_of(options, options.final_seconds(path.in_lab))
    body = ForwardingSearch(path, options, goals, search, on_tick, on_step, frames)
    return live_trial(trial, body, Watching(watch, sample_interval, samplers_from))


@dataclass
class ForwardingSearch:
    """A search trial's own steps: every direction checked, then each frame size and
    direction searched, each one's log and figures kept."""

    path: SearchPath
    options: ForwardingOptions
    goals: tuple[Goal, ...]
    search: Search
    on_tick: Callable[[float], None] | None
    on_step: Callable[[str], None] | None
    frames: FrameJournal | None
    raw: list[RawOutput] = dataclasses.field(default_factory=list)
    measurements: list[Measurement] = dataclasses.field(default_factory=list)
    findings: list[Finding] = dataclasses.field(default_factory=list)
    started: float = dataclasses.field(default_factory=time.monotonic)

    def tick(self) -> None:
        if self.on_tick is not None:
            self.on_tick(time.monotonic() - self.started)

    def run(self, life: TrialLife) -> None:
        path, options, on_step = self.path, self.options, self.on_step
        life.watch()
        # What is cheap to check for every direction is checked before any long search
        # begins: that its legs are known, then that each carries traffic at all.
        legs_of = {
            direction: _legs_of(path, direction, life.trial) for direction in options.directions
        }
        sending = _sending(legs_of.values(), options, on_step, self.frames)
        for legs in legs_of.values():
            # Each leg on its own: where several senders share a direction, one whose
            # traffic never arrives would hide behind the others' (half of it arriving).
            for leg in legs:
                _check_reachable((leg,), self.tick, sending)
        for direction, legs in legs_of.items():
            for frame in options.frame_sizes:
                cell = Cell(sending=sending)
                where = f"{frame} B {direction}"

                def progress(message: str, where: str = where) -> None:
                    if on_step is not None:
                        on_step(f"{where}: {message}")

                measure = measurer(legs, frame, cell, self.tick)
                ceiling = (
                    frames_per_second(path.link_rate_bps, frame) if path.link_rate_bps else None
                )
                try:
                    found = self.search(
                        measure, self.goals, search_limits(options, ceiling), progress=progress
                    )
                finally:
                    generators.remove_frames(list(cell.frames.values()))
                log = SearchLog(
                    frame=frame,
                    direction=direction,
                    result=found,
                    link_rate_bps=path.link_rate_bps,
                    ceiling_pps=ceiling,
                    counters=tuple(cell.counters),
                    interfaces=tuple(cell.interfaces),
                )
                self.raw.append(_log_output(legs[0].sender, log))
                self.raw.extend(cell.raw)
                self.measurements.extend(measurements_of(log))
                self.findings.extend(_findings(log, cell))
                _check_measured_device(log)

    def stop(self) -> None:
        """Each search trial stops its own processes as it ends: nothing is left."""

    def outcome(self, life: TrialLife) -> TrialOutcome:
        result = Result(
            tool=Tool.FORWARDING,
            protocol=Proto.UDP,
            directions=(),
            tool_version=None,  # iperf's version is in the run's provenance (tools per host)
            measurements=tuple(self.measurements),
        )
        return life.outcome(
            result=result if life.reason is None or self.measurements else None,
            raw=self.raw,
            findings=self.findings,
        )


def _log_output(host: Host, log: SearchLog) -> RawOutput:
    return RawOutput(
        host=host.name,
        side=Side.CLIENT,
        argv=log.argv(),
        format="json",
        text=to_json(log),
        exit_status=0,
    )


def _findings(log: SearchLog, cell: Cell) -> list[Finding]:
    where = f"{log.frame} B {log.direction}"
    found: list[Finding] = []
    ceiling = log.result.generator_ceiling
    limited = [g.goal.name for g in log.result.goals if g.generator_limited]
    if ceiling is not None and limited:
        # Only when a goal's answer is the generator's: a search's first trial at the
        # link's frame rate is often more than the generator can send, and says nothing.
        found.append(
            Finding(
                FindingKind.GENERATOR_LIMITED,
                f"{where}: the generator sent at most {ceiling:,.0f} packets/s; "
                f"{', '.join(limited)} is the generator's limit, not the device's",
            )
        )
    if log.result.stopped is not None:
        found.append(Finding(FindingKind.SEARCH_UNFINISHED, f"{where}: {log.result.stopped}"))
    overcounted = []
    for trial, iperf, counted, wire in zip(
        log.result.trials, cell.iperf_received, cell.counters, cell.interfaces, strict=True
    ):
        slack = COUNTER_SLACK_PACKETS + COUNTER_SLACK_SHARE * trial.sent
        seen = [c.rx for c in (counted, wire) if c is not None and iperf > c.rx + slack]
        if seen:
            overcounted.append((iperf, min(seen)))
    if overcounted:
        iperf, arrived = overcounted[0]
        found.append(
            Finding(
                FindingKind.SUSPECT,
                f"{where}: in {len(overcounted)} trial(s) iperf counted more datagrams "
                f"received than the receiver's UDP counters or network interfaces saw "
                f"arrive (e.g. {iperf:,} against {arrived:,}): iperf's count cannot be "
                "trusted here",
            )
        )
    held_back = [
        (written, wire.tx)
        for written, wire in zip(cell.iperf_sent, cell.interfaces, strict=True)
        if wire is not None and wire.tx < written
    ]
    if held_back:
        most = max(held_back, key=lambda pair: pair[0] - pair[1])
        found.append(
            Finding(
                FindingKind.GENERATOR_LIMITED,
                f"{where}: in {len(held_back)} trial(s) fewer packets left the sender's "
                f"network interfaces than iperf wrote (at most {most[0] - most[1]:,} of "
                f"{most[0]:,} held back): its own queue dropped them, so they were never "
                "offered to the device and count as the generator's shortfall, not as loss",
            )
        )
    return found


def _legs_of(path: SearchPath, direction: str, trial: Trial) -> tuple[Leg, ...]:
    legs = path.legs.get(direction)
    if legs is None:
        raise TrialFailure(
            f"direction {direction} needs the client's address for the server to "
            f"send to: give host {trial.path.client!r} an address: in hosts:"
        )
    return legs


def _check_measured_device(log: SearchLog) -> None:
    """A search whose every trial was generator-limited measured the generator only:
    whatever bounds it has say nothing of the device; one that found no bound at all
    (neither a load within a goal nor one above it) has no figure to give. Either fails
    the trial saying so, its log kept."""
    trials = log.result.trials
    goals = log.result.goals
    if trials and goals and all(g.lower is None and g.upper is None for g in goals):
        why = log.result.stopped or "its trials decided no load"
        raise TrialFailure(
            f"{log.frame} B {log.direction}: the search found no bound for any goal: {why}"
        )
    if not trials or not all(trial.generator_limited for trial in trials):
        return
    asked = max(trial.intended for trial in trials)
    offered = max(trial.offered for trial in trials)
    raise TrialFailure(
        f"{log.frame} B {log.direction}: every one of the search's {len(trials)} trials was "
        f"generator-limited (asked for up to {asked:,.0f} packets/s, the generator offered "
        f"at most {offered:,.0f}): nothing was measured of the device"
    )


def _sending(
    legs_of: Iterable[Sequence[Leg]],
    options: ForwardingOptions,
    on_step: Callable[[str], None] | None,
    frames: FrameJournal | None = None,
) -> Sending:
    """Each sending host's generator, as the plan asks and as the host has it."""
    chosen: dict[str, str] = {}
    for legs in legs_of:
        for leg in legs:
            if leg.sender.name in chosen:
                continue
            name, note = generators.choose(leg.sender, options.generator)
            chosen[leg.sender.name] = name
            if note is not None and on_step is not None:
                on_step(note)
    if len(set(chosen.values())) > 1:
        # The legs of `both` go at once and are counted together: by one generator.
        if on_step is not None:
            on_step("not every sending host has tcpreplay: iperf2 sends from all of them")
        chosen = dict.fromkeys(chosen, generators.IPERF2)
    return Sending(chosen, options.cpus, frames)


def _check_reachable(
    legs: Sequence[Leg], tick: Callable[[], None], sending: Sending | None = None
) -> None:
    cell = Cell(sending=sending or Sending())
    needs = "; ".join(leg.needs for leg in legs if leg.needs is not None)
    try:
        result = trial_at(legs, 64, REACHABILITY_LOAD, REACHABILITY_SECONDS, cell=cell, tick=tick)
    except TrialFailure as failure:
        # A router without the port forward may answer "port unreachable", which ends
        # the sender before anything is counted.
        if not needs:
            raise
        raise TrialFailure(f"{failure}: {needs}") from None
    finally:
        generators.remove_frames(list(cell.frames.values()))
    if result.received < REACHABILITY_SHARE * result.sent:
        leg = legs[0]
        raise TrialFailure(
            f"only {result.received} of {result.sent} packets sent at "
            f"{REACHABILITY_LOAD} packets/s from {leg.sender.name} reached "
            f"{leg.receiver.name} ({leg.target} port {leg.port}): the path does not "
            "carry this direction "
            + (f"({needs})" if needs else "(an address, route or port forward is missing)")
        )
