"""One trial of a forwarding search: `load` packets/s through every leg of a direction
at once for `duration` seconds, by each sending host's generator (iperf2 or tcpreplay:
search_generators.py) in as many streams as asked, its receivers and senders stopped
whatever happens, and what arrived counted by the generator and by the hosts' own
counters (search_counters.py).
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from wirespeed.hosts.base import Host, Process
from wirespeed.model import Proto, RawOutput, Side
from wirespeed.run import search_generators as generators
from wirespeed.run.search_counters import (
    Packets,
    UdpCounts,
    udp_counted,
    udp_readings,
    wire_counted,
    wire_readings,
)
from wirespeed.run.search_generators import FrameFile, FrameJournal, Stream
from wirespeed.run.search_legs import Leg
from wirespeed.run.trial_life import (
    TrialFailure,
    check_port_free,
    raw_output,
    stopped_after,
    wait_listening,
)
from wirespeed.search.frames import udp_payload_for_frame
from wirespeed.search.log import Counters, InterfaceCounts
from wirespeed.search.model import Measurer, TrialResult
from wirespeed.tools import iperf2_pps, tcpreplay

# Beyond a trial's duration, how long the sender may take to start, finish and print.
SENDER_MARGIN = 10.0
# After the sender ends, how long the receiver may take to print its report.
RECEIVER_REPORT_TIMEOUT = 3.0
POLL = 0.01


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
class Cell:
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


def measurer(legs: Sequence[Leg], frame: int, cell: Cell, tick: Callable[[], None]) -> Measurer:
    def measure(load: float, duration: float) -> TrialResult:
        return trial_at(legs, frame, load, duration, cell=cell, tick=tick)

    return measure


def trial_at(
    legs: Sequence[Leg],
    frame: int,
    load: float,
    duration: float,
    *,
    cell: Cell,
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
    before = udp_readings(legs)
    wire_before = wire_readings(legs)
    after: list[tuple[UdpCounts | None, UdpCounts | None] | None] = []
    wire_after: list[tuple[Packets | None, Packets | None]] = []
    statuses: list[int] = []
    receiver_statuses: list[int] = []

    def stop() -> None:
        statuses.extend(sender.stop() for _, sender in senders)
        receiver_statuses.extend(receiver.stop(grace=0.0) for receiver in receivers)

    with stopped_after(stop):
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
        after = udp_readings(legs)
        wire_after = wire_readings(legs)
    for (stream, sender), status in zip(senders, statuses, strict=True):
        cell.raw.append(raw_output(stream.leg.sender, Side.CLIENT, sender, status))
    for stream, receiver, status in zip(iperfs, receivers, receiver_statuses, strict=True):
        cell.raw.append(raw_output(stream.leg.receiver, Side.SERVER, receiver, status))
    counters = udp_counted(before, after)
    wire = wire_counted(wire_before, wire_after)
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


def _frame_file(cell: Cell, leg: Leg, frame: int) -> FrameFile:
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
    return measurer(legs, frame, Cell(), lambda: None)


@contextlib.contextmanager
def measuring(legs: Sequence[Leg], frame: int, sending: Sending) -> Iterator[Measurer]:
    """A trial through `legs` at one frame size by `sending`'s generators, outputs not
    kept; tcpreplay's frame files removed at the end (benchmarks/generator_ceiling.py)."""
    cell = Cell(sending=sending)
    try:
        yield measurer(legs, frame, cell, lambda: None)
    finally:
        generators.remove_frames(list(cell.frames.values()))
