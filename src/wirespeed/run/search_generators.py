"""Which program sends a search's packets, and how many of it: per sending host, by
what it has and by the plan's `generator:`; per leg, `cpus:` processes each sending
its share of the load.

    iperf2     everywhere (the fallback): UDP through the sender's stack, counted by
               an iperf receiver on the other end
    tcpreplay  one prebuilt UDP frame from an AF_PACKET socket, paced per packet
               (tools/tcpreplay.py); nothing listens at the other end, whose network
               counters say what arrived
    auto       tcpreplay where the sending host has it, iperf2 elsewhere (said in a note)

A leg sent by several processes is several streams: each its share of the leg's load,
and for iperf2 its own port (an iperf receiver per stream; ports leg.port + 10 k stay in
the lab NAT's forwarded range).

tcpreplay's frame file (/tmp/wirespeed-frame-<12 hex>.pcap on the sending host, be it
this machine or a device over SSH) is journaled before it is written (a `frame:TOKEN`
row, tune/frame_undo.py) when the run gives a journal: removed when the frame size's
search ends, however it ends, and after a SIGKILL by the next run's recovery.
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from wirespeed.errors import MissingToolError, WirespeedError
from wirespeed.hosts.base import Host
from wirespeed.run.search_legs import Leg
from wirespeed.run.trial_life import TrialFailure
from wirespeed.signals import deferred_signals
from wirespeed.tools import tcpreplay
from wirespeed.tune.frame_undo import ABSENT, frame_path, frame_target
from wirespeed.tune.journal import Journal

IPERF2 = "iperf2"
TCPREPLAY = "tcpreplay"
AUTO = "auto"
GENERATORS = (AUTO, IPERF2, TCPREPLAY)
STREAM_PORT_STEP = 10


@dataclass(frozen=True)
class Stream:
    """One sending process: its leg, its share of the leg's load and its port."""

    leg: Leg
    share: float
    port: int
    generator: str


def choose(host: Host, wanted: str) -> tuple[str, str | None]:
    """The generator that sends from `host`, and a note when `auto` fell back; a missing
    generator that the plan named is a MissingToolError (which package to install)."""
    if wanted == IPERF2:
        return IPERF2, None
    if host.which(tcpreplay.PROGRAM) is not None:
        return TCPREPLAY, None
    if wanted == TCPREPLAY:
        raise MissingToolError(tcpreplay.PROGRAM, host.name)
    return IPERF2, (
        f"{host.name} has no tcpreplay (apt-get install tcpreplay): iperf2 sends from it, "
        "up to its lower packet rate"
    )


def streams_of(legs: Sequence[Leg], cpus: int, generators: dict[str, str]) -> list[Stream]:
    """`cpus` streams per leg, each 1/cpus of its share, by the leg's sender's generator."""
    return [
        Stream(
            leg, leg.share / cpus, leg.port + STREAM_PORT_STEP * index, generators[leg.sender.name]
        )
        for leg in legs
        for index in range(cpus)
    ]


@dataclass(frozen=True)
class FrameJournal:
    """Where frame files are journaled: the run's journal, and the name by which its
    recovery reaches a sending host again (`local` for this machine and its namespaces,
    which share its /tmp; the SSH target for a device)."""

    journal: Journal
    name_of: Callable[[Host], str]


@dataclass
class FrameFile:
    """The one-frame pcap file tcpreplay replays, on its sending host; its journal
    session, if journaled."""

    host: Host
    device: str
    path: str
    journal: Journal | None = None
    session: str | None = None


def _ip(host: Host, argv: Sequence[str]) -> str:
    done = host.run(argv, timeout=10.0)
    if done.returncode != 0:
        said = (done.stderr or done.stdout).strip() or f"exit status {done.returncode}"
        raise TrialFailure(f"{' '.join(argv)} on {host.name}: {said}")
    return done.stdout


def _neighbour(host: Host, route: tcpreplay.Route, target: str) -> str:
    """The next hop's MAC address, asked for with a ping when the host has none yet."""
    hop = route.next_hop(target)
    show = ["ip", "neigh", "show", hop, "dev", route.device]
    mac = tcpreplay.parse_neighbour(_ip(host, show))
    if mac is None:
        # The answer does not matter (a router may not answer pings): the ARP it sends does.
        host.run(["ping", "-c", "1", "-W", "1", hop], timeout=5.0)
        mac = tcpreplay.parse_neighbour(_ip(host, show))
    if mac is None:
        raise TrialFailure(
            f"{host.name} knows no MAC address for {hop} on {route.device} (ARP unanswered): "
            "tcpreplay cannot address its frames"
        )
    return mac


def prepare_frame(leg: Leg, frame: int, journal: FrameJournal | None = None) -> FrameFile:
    """Write the leg's frame of `frame` bytes (with FCS) as a pcap file on its sender,
    journaled first when a journal is given."""
    host = leg.sender
    if ":" in leg.target:
        raise TrialFailure(f"tcpreplay sends IPv4 frames only; {leg.target} is IPv6: use iperf2")
    try:
        route = tcpreplay.parse_route(_ip(host, ["ip", "-o", "route", "get", leg.target]))
        own = tcpreplay.parse_link_mac(_ip(host, ["ip", "-o", "link", "show", "dev", route.device]))
        if own is None:
            raise TrialFailure(f"{route.device} on {host.name} has no Ethernet address")
        data = tcpreplay.udp_frame(
            destination_mac=_neighbour(host, route, leg.target),
            source_mac=own,
            source=route.source,
            destination=leg.target,
            port=leg.port,
            frame_bytes=frame,
        )
    except ValueError as error:
        raise TrialFailure(f"tcpreplay on {host.name}: {error}") from None
    # A random name: a device may be sent from by several machines' wirespeed at once.
    token = secrets.token_hex(6)
    file = FrameFile(host, route.device, frame_path(token))
    if journal is not None:
        _journal_frame(file, token, journal)
    try:
        done = host.run(tcpreplay.write_script(tcpreplay.pcap_of(data), file.path), timeout=10.0)
    except BaseException:
        # Ctrl-C in the middle of writing it: the caller never gets the file to remove.
        remove_frames([file])
        raise
    if done.returncode != 0:
        remove_frames([file])
        raise TrialFailure(f"could not write {file.path} on {host.name}: {done.stderr.strip()}")
    return file


def _journal_frame(file: FrameFile, token: str, frames: FrameJournal) -> None:
    """A `frame:TOKEN` row before the file exists: a SIGKILL after this leaves a row that
    the next run's recovery restores by removing the file."""
    from wirespeed.tune.apply import host_boot_id

    session = frames.journal.new_session()
    with deferred_signals():
        frames.journal.record(
            session=session,
            position=0,
            host=frames.name_of(file.host),
            host_boot=host_boot_id(file.host),
            target=frame_target(token),
            previous=ABSENT,
            new="written",
            why=f"tcpreplay's frame file on {file.host.name}",
        )
        file.journal, file.session = frames.journal, session


def remove_frames(files: Sequence[FrameFile]) -> None:
    """Remove each file, and close its journal row; never raises: a file that could not
    be removed keeps its row open, for the next run's recovery."""
    from wirespeed.tune.apply import restore_session

    with deferred_signals():
        for file in files:
            # A host gone away takes its /tmp file with it (or keeps a hundred bytes).
            with contextlib.suppress(WirespeedError, OSError, TimeoutError):
                if file.journal is not None and file.session is not None:
                    restore_session(file.host, file.journal, file.session)
                else:
                    file.host.run(["rm", "-f", file.path], timeout=10.0)


def tcpreplay_argv(stream: Stream, file: FrameFile, load: float, duration: float) -> list[str]:
    """The stream's share of `load` packets/s for `duration` seconds, as a count of
    frames (tcpreplay's --loop) at a whole packet rate."""
    pps = max(1, round(load * stream.share))
    count = max(1, round(pps * duration))
    return tcpreplay.sender_argv(file.device, file.path, pps, count)
