"""Run one forwarding-rate search trial: per frame size and direction, a search of trials
of paced UDP through the path (iperf2 `-b Npps`, or tcpreplay's raw frames `--pps`:
search_generators.py), each counted at the receiver.

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
started here is stopped before this returns or raises; a cell that fails ends the trial
with the reason, the cells already searched kept. What is cheap is checked for every
direction before the first search (its legs, that it carries traffic at all); a search
whose every trial was generator-limited, or that found no bound at all, fails the trial.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

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
)
from wirespeed.plan.forwarding import ForwardingOptions, ratio_of
from wirespeed.run import search_generators as generators
from wirespeed.run.search_generators import FrameFile, FrameJournal, Stream
from wirespeed.run.search_legs import Leg, SearchPath
from wirespeed.run.trial import (
    TrialFailure,
    check_port_free,
    start_samplers,
    stop_samplers,
    wait_listening,
)
from wirespeed.run.trial_life import judged_monitors, raw_output, trial_outcome
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
from wirespeed.tools import iperf2_pps, tcpreplay

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


@dataclass(frozen=True)
class Sending:
    """How a search's packets are sent: the generator of each sending host (by name) and
    how many processes send each leg (search_generators.py)."""

    generators: dict[str, str] = dataclasses.field(default_factory=dict)
    cpus: int = 1
    # Where tcpreplay's frame files are journaled (None: not, as for a benchmark).
    frames: FrameJournal | None = None

    def generator(self, host: Host) -> str:
        return self.generators.get(host.name, generators.IPERF2)


@dataclass
class _Cell:
    """What one frame size x direction collected: raw outputs, counters per trial."""

    raw: list[RawOutput] = dataclasses.field(default_factory=list)
    counters: list[Counters | None] = dataclasses.field(default_factory=list)
    interfaces: list[InterfaceCounts | None] = dataclasses.field(default_factory=list)
    # The generator's own counts: what it received (iperf; for tcpreplay, which receives
    # nothing, the receiver's counters) and what it sent (iperf's writes, tcpreplay's
    # frames the kernel took).
    iperf_received: list[int] = dataclasses.field(default_factory=list)
    iperf_sent: list[int] = dataclasses.field(default_factory=list)
    sending: Sending = dataclasses.field(default_factory=Sending)
    # tcpreplay's frame file per (sender, leg target, leg port), removed with the cell.
    frames: dict[tuple[str, str, int], FrameFile] = dataclasses.field(default_factory=dict)


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
        sending = _sending(legs_of.values(), options, on_step, frames)
        for legs in legs_of.values():
            # Each leg on its own: where several senders share a direction, one whose
            # traffic never arrives would hide behind the others' (half of it arriving).
            for leg in legs:
                _check_reachable((leg,), tick, sending)
        for direction, legs in legs_of.items():
            for frame in options.frame_sizes:
                cell = _Cell(sending=sending)
                where = f"{frame} B {direction}"

                def progress(message: str, where: str = where) -> None:
                    if on_step is not None:
                        on_step(f"{where}: {message}")

                measure = _measurer(legs, frame, cell, tick)
                ceiling = (
                    frames_per_second(path.link_rate_bps, frame) if path.link_rate_bps else None
                )
                try:
                    found = search(
                        measure, goals, search_limits(options, ceiling), progress=progress
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
    monitors, judged = judged_monitors(sample_sets)
    result = Result(
        tool=Tool.FORWARDING,
        protocol=Proto.UDP,
        directions=(),
        tool_version=None,  # iperf's version is in the run's provenance (tools per host)
        measurements=tuple(measurements),
    )
    return trial_outcome(
        trial,
        started_at,
        reason,
        result=result if reason is None or measurements else None,
        raw=raw,
        monitors=monitors,
        findings=[*findings, *judged],
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
    cell = _Cell(sending=sending or Sending())
    needs = "; ".join(leg.needs for leg in legs if leg.needs is not None)
    try:
        result = _run_trial(legs, 64, REACHABILITY_LOAD, REACHABILITY_SECONDS, cell=cell, tick=tick)
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
    """One trial at `load` packets/s per leg for `duration` seconds, every leg at once,
    each leg by its sender's generator in `cell.sending.cpus` streams."""
    sending = cell.sending
    streams = generators.streams_of(
        legs, sending.cpus, {leg.sender.name: sending.generator(leg.sender) for leg in legs}
    )
    replayed = [s for s in streams if s.generator == generators.TCPREPLAY]
    files = [(stream, _frame_file(cell, stream.leg, frame)) for stream in replayed]
    iperfs = [s for s in streams if s.generator != generators.TCPREPLAY]
    payload = udp_payload_for_frame(frame)
    receivers: list[Process] = []
    senders: list[tuple[Stream, Process]] = []
    before = _counter_readings(legs)
    wire_before = _wire_readings(legs)
    after: list[tuple[UdpCounts | None, UdpCounts | None] | None] = []
    wire_after: list[tuple[Packets | None, Packets | None]] = []
    try:
        for stream in iperfs:
            leg = stream.leg
            check_port_free(leg.receiver, stream.port, Proto.UDP)
            receiver = leg.receiver.start(iperf2_pps.receiver_argv(stream.port, payload))
            receivers.append(receiver)
            wait_listening(leg.receiver, receiver, stream.port, Proto.UDP)
        for stream in iperfs:
            pps = max(1, round(load * stream.share))
            argv = iperf2_pps.sender_argv(stream.leg.target, stream.port, payload, pps, duration)
            senders.append((stream, stream.leg.sender.start(argv)))
        for stream, file in files:
            argv = generators.tcpreplay_argv(stream, file, load, duration)
            senders.append((stream, stream.leg.sender.start(argv)))
        deadline = time.monotonic() + duration + SENDER_MARGIN
        while any(sender.poll() is None for _, sender in senders):
            if time.monotonic() > deadline:
                raise TrialFailure(
                    f"the {senders[0][0].generator} sender did not finish a {duration:g} s "
                    f"trial within {SENDER_MARGIN:g} s more and was stopped"
                )
            tick()
            time.sleep(0.05)
        _wait_reports(receivers)
        after = _counter_readings(legs)
        wire_after = _wire_readings(legs)
    finally:
        with deferred_signals():
            statuses = [sender.stop() for _, sender in senders]
            receiver_statuses = [receiver.stop(grace=0.0) for receiver in receivers]
    for (stream, sender), status in zip(senders, statuses, strict=True):
        cell.raw.append(raw_output(stream.leg.sender, Side.CLIENT, sender, status))
    for stream, receiver, status in zip(iperfs, receivers, receiver_statuses, strict=True):
        cell.raw.append(raw_output(stream.leg.receiver, Side.SERVER, receiver, status))
    counters = _counted(before, after)
    wire = _wire_counted(wire_before, wire_after)
    if replayed:
        sent, received, offered_duration = _replayed(senders, counters, wire, duration)
    else:
        sent, received = _iperf_counts(senders, receivers)
        offered_duration = iperf2_pps.sending_seconds(duration)
    cell.counters.append(counters)
    cell.interfaces.append(wire)
    cell.iperf_received.append(received)
    cell.iperf_sent.append(sent)
    if wire is not None and wire.tx < sent:
        # What never left the sender's interfaces (its own queue dropped it) was never
        # offered to the device: the trial offered what left.
        sent = wire.tx
        received = min(received, sent)
    if counters is not None and not replayed:
        # iperf numbers its datagrams, so its count of the lost ones is exact, but it
        # also counts as lost what reached its host and its busy socket then dropped:
        # the receiver's, not the device's. (Sent minus arrived would not do: iperf
        # repeats its final datagram in a burst until answered, and a DUT at its limit
        # drops some of those repeats, which are no data.)
        received = min(sent, received + counters.socket_drops)
    # The load as the search asked it (a generator takes whole packets/s): the search
    # knows its loads by these numbers. What was offered is judged against the time the
    # generator could send for (iperf's timer's hundredths; tcpreplay's own clock).
    return TrialResult(
        intended=load,
        duration=duration,
        sent=sent,
        received=min(received, sent),
        offered_duration=offered_duration,
        legs=directions_of(legs),
    )


def directions_of(legs: Sequence[Leg]) -> int:
    """How many full loads the legs send together: `both` two, senders sharing one."""
    return max(1, round(sum(leg.share for leg in legs)))


def _frame_file(cell: _Cell, leg: Leg, frame: int) -> FrameFile:
    """The leg's frame file on its sender, written at the cell's first trial."""
    key = (leg.sender.name, leg.target, leg.port)
    file = cell.frames.get(key)
    if file is None:
        file = generators.prepare_frame(leg, frame, cell.sending.frames)
        cell.frames[key] = file
    return file


def _iperf_counts(
    senders: Sequence[tuple[Stream, Process]], receivers: Sequence[Process]
) -> tuple[int, int]:
    """(writes, received) by iperf's own accounts, every stream together."""
    sent = received = 0
    for (stream, sender), receiver in zip(senders, receivers, strict=True):
        leg = stream.leg
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
    return sent, received


def _replayed(
    senders: Sequence[tuple[Stream, Process]],
    counters: Counters | None,
    wire: InterfaceCounts | None,
    duration: float,
) -> tuple[int, int, float]:
    """(sent, received, seconds) of a tcpreplay trial: sent by tcpreplay's account, for
    as long as its slowest stream took; received as the receivers' counters saw it
    arrive (the namespaces' UDP counters in the lab, else the interfaces')."""
    sent = 0
    seconds = 0.0
    for stream, sender in senders:
        try:
            report = tcpreplay.parse_sender(sender.stdout() + "\n" + sender.stderr())
        except ValueError as error:
            raise TrialFailure(f"tcpreplay on {stream.leg.sender.name} failed: {error}") from None
        sent += report.sent
        seconds = max(seconds, report.seconds)
    if counters is not None:
        received = counters.rx
    elif wire is not None:
        received = wire.rx
    else:
        raise TrialFailure(
            "the receiver's network counters (/proc/net/dev) could not be read: tcpreplay "
            "receives nothing, so nothing counted what arrived"
        )
    # A trial too short for tcpreplay's clock to say: judged against what was asked.
    return sent, received, seconds if seconds > 0 else duration


def _distinct(legs: Sequence[Leg]) -> list[tuple[Host | None, Host | None]]:
    """The legs' sending and receiving hosts, each once (several streams or legs may
    share one), paired for the readings: None where one list is longer."""
    senders = list({leg.sender.name: leg.sender for leg in legs}.values())
    receivers = list({leg.receiver.name: leg.receiver for leg in legs}.values())
    return list(itertools.zip_longest(senders, receivers))


def _counter_readings(
    legs: Sequence[Leg],
) -> list[tuple[UdpCounts | None, UdpCounts | None] | None]:
    """The sending and receiving hosts' UDP counters, each host once, where the legs say
    they are clean (the lab's namespaces carry nothing else); None elsewhere."""
    if not all(leg.counted for leg in legs):
        return [None]
    return [
        (_udp_counters(s) if s else NOT_HERE_UDP, _udp_counters(r) if r else NOT_HERE_UDP)
        for s, r in _distinct(legs)
    ]


def _wire_readings(legs: Sequence[Leg]) -> list[tuple[Packets | None, Packets | None]]:
    """The sending and receiving hosts' interface counters, each host once."""
    return [
        (_interface_packets(s) if s else NOT_HERE, _interface_packets(r) if r else NOT_HERE)
        for s, r in _distinct(legs)
    ]


# /proc/net/dev of a 32-bit kernel (OpenWrt on many routers) counts in 32 bits.
COUNTER_WRAP = 2**32


# Per interface other than loopback: (packets sent, packets received) as /proc/net/dev
# counts them.
Packets = dict[str, tuple[int, int]]

# A reading of no host (one side has more distinct hosts than the other): counts nothing.
NOT_HERE: Packets = {}
NOT_HERE_UDP: UdpCounts = (0, 0, 0)


def _interface_packets(host: Host) -> Packets | None:
    """The host's interfaces' packet counters now; None when unreadable."""
    try:
        interfaces = parse_net_dev(host.read_file("/proc/net/dev"))
    except (WirespeedError, OSError, ValueError):
        return None
    found = {name: (c.tx_packets, c.rx_packets) for name, c in interfaces.items() if name != "lo"}
    return found or None


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


def measurer_for(legs: Sequence[Leg], frame: int) -> Measurer:
    """A trial through `legs` at one frame size, its outputs not kept: for comparing
    search algorithms on the same path (benchmarks/search_cost.py)."""
    return _measurer(legs, frame, _Cell(), lambda: None)


@contextlib.contextmanager
def measuring(legs: Sequence[Leg], frame: int, sending: Sending) -> Iterator[Measurer]:
    """A trial through `legs` at one frame size by `sending`'s generators, outputs not
    kept; tcpreplay's frame files removed at the end (benchmarks/generator_ceiling.py)."""
    cell = _Cell(sending=sending)
    try:
        yield _measurer(legs, frame, cell, lambda: None)
    finally:
        generators.remove_frames(list(cell.frames.values()))
