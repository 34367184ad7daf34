"""The plan checks that are one kind's own: the functions each kind's module gives as its
`checks`, run by plan/checks.py before the checks every traffic test shares.

Each takes the test, the paths it may run on, the collector, (name, MTU) of each
variant that sets one, and the plan's host names.
"""

from __future__ import annotations

from wirespeed.model import Direction, PathSpec, Proto, Topology
from wirespeed.plan.checks import (
    IPERF2_UDP_LENGTH,
    AtMtu,
    RunsOn,
    datagram_room,
)
from wirespeed.plan.collect import Collector
from wirespeed.plan.forwarding_checks import check_search_on_paths
from wirespeed.plan.plan import runs_on
from wirespeed.plan.resolve import ResolvedTest
from wirespeed.plan.tunnel_checks import refuse_search_through_tunnel


def check_iperf2(test: ResolvedTest, on: RunsOn, out: Collector) -> None:
    """Its congestion control on the server's flows, `-d` through NAT, and its default
    datagrams at the MTU of each path and variant."""
    _check_iperf2_congestion(test, out)
    spec = test.case.spec
    for path in on.paths:
        _check_dual_through_nat(test, path, out)
        if spec.protocol is Proto.UDP and spec.length is None:
            for at in (None, *on.variant_mtus):
                _check_default_datagram(test, path, out, at)


def check_iperf3(test: ResolvedTest, on: RunsOn, out: Collector) -> None:
    if test.case.spec.direction is Direction.DUAL:
        out.error(
            test.where("direction"),
            f"test {test.case.id!r}: iperf3 has no dual mode",
            hint="use direction: bidir (iperf3 --bidir), the same two flows on the client's "
            "own connection",
        )


def check_forwarding(test: ResolvedTest, on: RunsOn, out: Collector) -> None:
    """A search's options on each path it runs on (plan/forwarding_checks.py), and no
    tunnel: its frames would not be the wire's. A path it cannot run on is the plan's
    path checks' to point at."""
    paths = [path for path in on.paths if runs_on(test.case.tool, path)]
    check_search_on_paths(test.case, test.loc, RunsOn(paths, on.variant_mtus, on.hosts), out)
    refuse_search_through_tunnel(test, paths, out)


def check_rrul(test: ResolvedTest, on: RunsOn, out: Collector) -> None:
    """An RRUL test is TCP both ways at once: a protocol or a direction of its own would
    be another test."""
    spec = test.case.spec
    if spec.protocol is not Proto.TCP:
        out.error(
            test.where("protocol"),
            f"test {test.case.id!r}: rrul runs TCP streams; protocol udp does not apply",
            hint="remove protocol:, or run an iperf3 UDP test beside it",
        )
    if spec.direction is not Direction.BIDIR:
        out.error(
            test.where("direction"),
            f"test {test.case.id!r}: rrul loads both directions at once; "
            f"direction {spec.direction.value} does not apply",
            hint="remove direction:, or run an iperf3 test with probes: for one direction",
        )


def _check_iperf2_congestion(test: ResolvedTest, out: Collector) -> None:
    # iperf2 (2.1.8) sets -Z on the client's own socket only: with -R it refuses ("-Z and
    # --reverse cannot be applied together"), with -d and -r it crashes (SIGSEGV), and with
    # --full-duplex the server's flow keeps the system's algorithm. iperf3's -C reaches the
    # server's data sockets too.
    spec = test.case.spec
    if not (
        spec.protocol is Proto.TCP
        and spec.congestion is not None
        and spec.direction is not Direction.UP
    ):
        return
    why = {
        Direction.DOWN: "iperf2 refuses -Z with -R",
        Direction.DUAL: "iperf2 crashes on -Z with -d",
        Direction.BIDIR: "the server's flow would keep the system's algorithm",
    }[spec.direction]
    out.error(
        test.where("congestion"),
        f"test {test.case.id!r}: iperf2 sets congestion: {spec.congestion} only on the "
        f"client's sending socket, so not for direction: {spec.direction.value} ({why})",
        hint="use tool: iperf3 (its -C reaches the server's sockets), or direction: up",
    )


def _check_dual_through_nat(test: ResolvedTest, path: PathSpec, out: Collector) -> None:
    # The reverse connection of -d is the server's to open, and NAT refuses it.
    if not (test.case.spec.direction is Direction.DUAL and path.topology is Topology.NAT):
        return
    out.error(
        test.where("direction"),
        f"test {test.case.id!r}: iperf2 dual (-d) cannot cross the nat path {path.name!r}: "
        "the server must connect back to the client, which NAT refuses; iperf2 then "
        "measures one direction only and still exits 0",
        hint="use direction: bidir (iperf2 --full-duplex), down (-R), or iperf3 bidir; "
        "or limit this test to other paths with paths: [...]",
    )


def _check_default_datagram(test: ResolvedTest, path: PathSpec, out: Collector, at: AtMtu) -> None:
    mtu, fits, in_variant = datagram_room(test, path, at)
    if fits < IPERF2_UDP_LENGTH:
        out.warn(
            test.where("mtu"),
            f"test {test.case.id!r}: iperf2 sends {IPERF2_UDP_LENGTH}-byte datagrams by "
            f"default: at MTU {mtu}{in_variant} each one is fragmented on the wire",
            hint=f"set length: {fits} to send one packet per datagram",
        )
