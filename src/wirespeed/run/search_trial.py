"""Run one forwarding-rate search trial: per frame size and direction, a search of trials
of paced UDP through the path (iperf2 `-b Npps`), each counted at the receiver.

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
started here is stopped before this returns or raises; a cell that fails ends the trial
with the reason, the cells already searched kept. What is cheap is checked for every
direction before the first search (its legs, that it carries traffic at all); a search
whose every trial was generator-limited, or that found no bound at all, fails the trial.
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from wirespeed.analysis.findings import judge_monitor
from wirespeed.errors import WirespeedError
from wirespeed.hosts.base import Host, Process
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
    TrialStatus,
)
from wirespeed.plan.forwarding import ForwardingOptions, ratio_of
from wirespeed.run.search_legs import Leg, SearchPath
from wirespeed.run.trial import (
    TrialFailure,
    check_port_free,
    monitor_records,
    start_samplers,
    stop_samplers,
    wait_listening,
)
from wirespeed.sampling.model import SampleSet
from wirespeed.sampling.procfs import parse_net_dev, parse_udp_snmp
from wirespeed.sampling.session import Sampler, SamplerSource, TrialSampler
from wirespeed.search.frames import frames_per_second, udp_payload_for_frame
from wirespeed.search.log import Counters, InterfaceCounts, SearchLog, to_json
from wirespeed.search.measurements import measurements_of
from wirespeed.search.model import (
    Goal,
    Measurer,
    SearchLimits,
    SearchResult,
    TrialResult,
)
from wirespeed.signals import deferred_signals
from wirespeed.tools import iperf2_pps

# Beyond a trial's duration, how long the sender may take to start, finish and print.
SENDER_MARGIN = 10.0
# After the sender ends, how long the receiver may take to print its report.
RECEIVER_REPORT_TIMEOUT = 3.0
POLL = 0.01
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


@dataclass
class _Cell:
    """What one frame size x direction collected: raw outputs, counters per trial."""

    raw: list[RawOutput] = dataclasses.field(default_factory=list)
    counters: list[Counters | None] = dataclasses.field(default_factory=list)
    interfaces: list[InterfaceCounts | None] = dataclasses.field(default_factory=list)
    iperf_received: list[int] = dataclasses.field(default_factory=list)  # iperf's own count
    iperf_sent: list[int] = dataclasses.field(default_factory=list)  # iperf's writes


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
) -> TrialOutcome:
    """Search every frame size and direction of the test; failures become a FAILED
    outcome (with what was measured before), never an exception, but KeyboardInterrupt
    and SIGTERM pass through after the processes are stopped."""
    assert trial.test.search is not None
    options = ForwardingOptions.model_validate(trial.test.search.as_dict())
    final = options.final_seconds(path.in_lab)
    goals = goals_of(options, final)
    started_at = time.time()
    started = time.monotonic()
    raw: list[RawOutput] = []
    measurements: list[Measurement] = []
    findings: list[Finding] = []
    reason: str | None = None
    samplers: list[tuple[str, Host, TrialSampler | str]] = []
    sample_sets: list[tuple[str, Host, SampleSet | str]] = []

    def tick() -> None:
        if on_tick is not None:
            on_tick(time.monotonic() - started)

    try:
        samplers = start_samplers(watch, sample_interval, samplers_from or Sampler())
        # What is cheap to check for every direction is checked before any long search
        # begins: that its legs are known, then that each carries traffic at all.
        legs_of = {direction: _legs_of(path, direction, trial) for direction in options.directions}
        for legs in legs_of.values():
            _check_reachable(legs, tick)
        for direction, legs in legs_of.items():
            for frame in options.frame_sizes:
                cell = _Cell()
                where = f"{frame} B {direction}"

                def progress(message: str, where: str = where) -> None:
                    if on_step is not None:
                        on_step(f"{where}: {message}")

                measure = _measurer(legs, frame, cell, tick)
                ceiling = (
                    frames_per_second(path.link_rate_bps, frame) if path.link_rate_bps else None
                )
                found = search(measure, goals, search_limits(options, ceiling), progress=progress)
                log = SearchLog(
                    frame=frame,
                    direction=direction,
                    result=found,
                    link_rate_bps=path.link_rate_bps,
                    ceiling_pps=ceiling,
                    counters=tuple(cell.counters),
                    interfaces=tuple(cell.interfaces),
                )
                raw.append(_log_output(legs[0].sender, log))
                raw.extend(cell.raw)
                measurements.extend(measurements_of(log))
                findings.extend(_findings(log, cell))
                _check_measured_device(log)
    except TrialFailure as failure:
        reason = str(failure)
    except (WirespeedError, TimeoutError) as error:
        reason = error.message if isinstance(error, WirespeedError) else str(error)
    finally:
        with deferred_signals():
            sample_sets = stop_samplers(samplers)
    monitors, summaries = monitor_records(sample_sets)
    result = Result(
        tool=Tool.FORWARDING,
        protocol=Proto.UDP,
        directions=(),
        tool_version=None,  # iperf's version is in the run's provenance (tools per host)
        measurements=tuple(measurements),
    )
    for summary in summaries:
        findings += judge_monitor(summary, controller_pid=os.getpid())
    return TrialOutcome(
        trial=trial,
        status=TrialStatus.OK if reason is None else TrialStatus.FAILED,
        started_at=started_at,
        finished_at=time.time(),
        result=result if reason is None or measurements else None,
        reason=reason,
        raw=tuple(raw),
        monitors=monitors,
        findings=tuple(findings),
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


def _findings(log: SearchLog, cell: _Cell) -> list[Finding]:
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


def _check_reachable(legs: Sequence[Leg], tick: Callable[[], None]) -> None:
    cell = _Cell()
    needs = "; ".join(leg.needs for leg in legs if leg.needs is not None)
    try:
        result = _run_trial(legs, 64, REACHABILITY_LOAD, REACHABILITY_SECONDS, cell=cell, tick=tick)
    except TrialFailure as failure:
        # A router without the port forward may answer "port unreachable", which ends
        # the sender before anything is counted.
        if not needs:
            raise
        raise TrialFailure(f"{failure}: {needs}") from None
    if result.received < REACHABILITY_SHARE * result.sent:
        leg = legs[0]
        raise TrialFailure(
            f"only {result.received} of {result.sent} packets sent at "
            f"{REACHABILITY_LOAD} packets/s from {leg.sender.name} reached "
            f"{leg.receiver.name} ({leg.target} port {leg.port}): the path does not "
            "carry this direction "
            + (f"({needs})" if needs else "(an address, route or port forward is missing)")
        )


def _measurer(legs: Sequence[Leg], frame: int, cell: _Cell, tick: Callable[[], None]) -> Measurer:
    def measure(load: float, duration: float) -> TrialResult:
        return _run_trial(legs, frame, load, duration, cell=cell, tick=tick)

    return measure


# (UDP datagrams sent, arrived, dropped by a socket after arriving) of one namespace.
UdpCounts = tuple[int, int, int]


def _udp_counters(host: Host) -> UdpCounts | None:
    """The host's network namespace's UDP counters (/proc/net/snmp): datagrams sent;
    datagrams that arrived, including those its sockets then dropped (InErrors: a
    busy receiver) and those for a closed port (NoPorts); and those socket drops.
    None when unreadable."""
    try:
        udp = parse_udp_snmp(host.read_file("/proc/net/snmp"))
    except (WirespeedError, OSError, ValueError):
        return None
    if "OutDatagrams" not in udp:
        return None
    dropped = udp.get("InErrors", 0)
    arrived = udp.get("InDatagrams", 0) + dropped + udp.get("NoPorts", 0)
    return udp["OutDatagrams"], arrived, dropped


def _run_trial(
    legs: Sequence[Leg],
    frame: int,
    load: float,
    duration: float,
    *,
    cell: _Cell,
    tick: Callable[[], None],
) -> TrialResult:
    """One trial at `load` packets/s per leg for `duration` seconds, every leg at once."""
    pps = max(1, round(load))
    payload = udp_payload_for_frame(frame)
    receivers: list[Process] = []
    senders: list[Process] = []
    before = [_leg_counters(leg) for leg in legs]
    wire_before = [_wire_counts(leg) for leg in legs]
    after: list[tuple[UdpCounts | None, UdpCounts | None] | None] = []
    wire_after: list[tuple[Packets | None, Packets | None]] = []
    try:
        for leg in legs:
            check_port_free(leg.receiver, leg.port, Proto.UDP)
            receiver = leg.receiver.start(iperf2_pps.receiver_argv(leg.port, payload))
            receivers.append(receiver)
            wait_listening(leg.receiver, receiver, leg.port, Proto.UDP)
        for leg in legs:
            argv = iperf2_pps.sender_argv(leg.target, leg.port, payload, pps, duration)
            senders.append(leg.sender.start(argv))
        deadline = time.monotonic() + duration + SENDER_MARGIN
        while any(sender.poll() is None for sender in senders):
            if time.monotonic() > deadline:
                raise TrialFailure(
                    f"the iperf sender did not finish a {duration:g} s trial within "
                    f"{SENDER_MARGIN:g} s more and was stopped"
                )
            tick()
            time.sleep(0.05)
        _wait_reports(receivers)
        after = [_leg_counters(leg) for leg in legs]
        wire_after = [_wire_counts(leg) for leg in legs]
    finally:
        with deferred_signals():
            statuses = [sender.stop() for sender in senders]
            receiver_statuses = [receiver.stop(grace=0.0) for receiver in receivers]
    sent = received = 0
    for index, leg in enumerate(legs):
        sender, receiver = senders[index], receivers[index]
        cell.raw.append(_raw(leg.sender, Side.CLIENT, sender, statuses[index]))
        cell.raw.append(_raw(leg.receiver, Side.SERVER, receiver, receiver_statuses[index]))
        try:
            report = iperf2_pps.parse_sender(sender.stdout() + "\n" + sender.stderr())
        except ValueError as error:
            raise TrialFailure(f"the iperf sender on {leg.sender.name} failed: {error}") from None
        receiver_text = receiver.stdout()
        counted = iperf2_pps.parse_receiver(receiver_text)
        if counted is None and iperf2_pps.receiver_connected(receiver_text):
            raise TrialFailure(
                f"the iperf receiver on {leg.receiver.name} saw the traffic but printed no "
                "final report"
            )
        sent += report.writes
        received += iperf2_pps.received(report, counted)
    counters = _counted(before, after)
    wire = _wire_counted(wire_before, wire_after)
    cell.counters.append(counters)
    cell.interfaces.append(wire)
    cell.iperf_received.append(received)
    cell.iperf_sent.append(sent)
    if wire is not None and wire.tx < sent:
        # What never left the sender's interfaces (its own queue dropped it) was never
        # offered to the device: the trial offered what left.
        sent = wire.tx
        received = min(received, sent)
    if counters is not None:
        # iperf numbers its datagrams, so its count of the lost ones is exact, but it
        # also counts as lost what reached its host and its busy socket then dropped:
        # the receiver's, not the device's. (Sent minus arrived would not do: iperf
        # repeats its final datagram in a burst until answered, and a DUT at its limit
        # drops some of those repeats, which are no data.)
        received = min(sent, received + counters.socket_drops)
    # The load as the search asked it (iperf takes whole packets/s): the search knows
    # its loads by these numbers. What was offered is judged against the time iperf
    # could send for (its timer's hundredths), per leg.
    return TrialResult(
        intended=load,
        duration=duration,
        sent=sent,
        received=received,
        offered_duration=iperf2_pps.sending_seconds(duration),
        legs=len(legs),
    )


def _leg_counters(leg: Leg) -> tuple[UdpCounts | None, UdpCounts | None] | None:
    """The sender's and the receiver's UDP counters, where the leg says they are clean
    (the lab's namespaces carry nothing else); None elsewhere."""
    if not leg.counted:
        return None
    return _udp_counters(leg.sender), _udp_counters(leg.receiver)


# /proc/net/dev of a 32-bit kernel (OpenWrt on many routers) counts in 32 bits.
COUNTER_WRAP = 2**32


# Per interface other than loopback: (packets sent, packets received) as /proc/net/dev
# counts them.
Packets = dict[str, tuple[int, int]]


def _interface_packets(host: Host) -> Packets | None:
    """The host's interfaces' packet counters now; None when unreadable."""
    try:
        interfaces = parse_net_dev(host.read_file("/proc/net/dev"))
    except (WirespeedError, OSError, ValueError):
        return None
    found = {name: (c.tx_packets, c.rx_packets) for name, c in interfaces.items() if name != "lo"}
    return found or None


def _wire_counts(leg: Leg) -> tuple[Packets | None, Packets | None]:
    """The sender's and the receiver's interface counters, now."""
    return _interface_packets(leg.sender), _interface_packets(leg.receiver)


def _delta(start: int, end: int) -> int:
    if end < start < COUNTER_WRAP:
        return end + COUNTER_WRAP - start
    return end - start


def _packets_over(start: Packets | None, end: Packets | None, column: int) -> int | None:
    """Packets sent (column 0) or received (1) over the trial by all of a host's
    interfaces; None unless the same interfaces were there at both readings: one that
    went away (a NIC reset that re-created it) takes its count with it, and the sum
    would show packets that never left as held back."""
    if start is None or end is None or start.keys() != end.keys():
        return None
    return sum(_delta(start[name][column], end[name][column]) for name in start)


def _wire_counted(
    before: Sequence[tuple[Packets | None, Packets | None]],
    after: Sequence[tuple[Packets | None, Packets | None]],
) -> InterfaceCounts | None:
    """Packets out of the legs' senders' interfaces and into their receivers' over a
    trial; None unless every one was read at both times."""
    if len(before) != len(after):
        return None
    tx = rx = 0
    for (sender_start, receiver_start), (sender_end, receiver_end) in zip(
        before, after, strict=True
    ):
        sent = _packets_over(sender_start, sender_end, 0)
        arrived = _packets_over(receiver_start, receiver_end, 1)
        if sent is None or arrived is None:
            return None
        tx += sent
        rx += arrived
    return InterfaceCounts(tx=tx, rx=rx)


def _counted(
    before: Sequence[tuple[UdpCounts | None, UdpCounts | None] | None],
    after: Sequence[tuple[UdpCounts | None, UdpCounts | None] | None],
) -> Counters | None:
    """Datagrams sent by the legs' senders and arrived at their receivers over a trial."""
    tx = rx = dropped = 0
    for start, end in zip(before, after, strict=True):
        if start is None or end is None:
            return None
        (sender_start, receiver_start), (sender_end, receiver_end) = start, end
        if None in (sender_start, receiver_start, sender_end, receiver_end):
            return None
        assert sender_start and receiver_start and sender_end and receiver_end
        tx += sender_end[0] - sender_start[0]
        rx += receiver_end[1] - receiver_start[1]
        dropped += receiver_end[2] - receiver_start[2]
    return Counters(tx=tx, rx=rx, socket_drops=dropped)


def _wait_reports(receivers: Sequence[Process]) -> None:
    """Until each receiver printed its final report (or saw nothing at all)."""
    deadline = time.monotonic() + RECEIVER_REPORT_TIMEOUT
    while time.monotonic() < deadline:
        texts = [receiver.stdout() for receiver in receivers]
        if all(
            iperf2_pps.parse_receiver(text) is not None or not iperf2_pps.receiver_connected(text)
            for text in texts
        ):
            return
        time.sleep(POLL)


def _raw(host: Host, side: Side, process: Process, status: int | None) -> RawOutput:
    return RawOutput(
        host=host.name,
        side=side,
        argv=process.argv,
        format="text",
        text=process.stdout(),
        stderr=process.stderr(),
        exit_status=status,
    )


def measurer_for(legs: Sequence[Leg], frame: int) -> Measurer:
    """A trial through `legs` at one frame size, its outputs not kept: for comparing
    search algorithms on the same path (benchmarks/search_cost.py)."""
    return _measurer(legs, frame, _Cell(), lambda: None)
