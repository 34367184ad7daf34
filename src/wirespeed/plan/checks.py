"""What cannot work on the wire, found before anything runs.

These are the traps of the seeds and of LIMITS.md: iperf2's `-d` through NAT (the
reverse connection is refused, iperf2 measures one direction and still exits 0),
iperf3's missing dual mode, iperf2's congestion control on the server's flows, UDP
datagrams that do not fit the MTU, and those no datagram can carry.
"""

from __future__ import annotations

from collections.abc import Sequence

from wirespeed.model import Direction, PathSpec, Proto, Tool, Topology
from wirespeed.plan.collect import Collector
from wirespeed.plan.resolve import ResolvedTest

IP_UDP_HEADERS = 28  # IPv4 20 + UDP 8: a datagram payload fits one packet up to MTU - 28
IPERF2_UDP_LENGTH = 1470  # iperf2's default datagram payload (-l)
# The largest payload one UDP datagram carries: IPv4's 16-bit total length (65,535) less
# its header and UDP's. Both iperfs fail on a longer -l only once the test runs.
MAX_UDP_PAYLOAD = 65_535 - IP_UDP_HEADERS
DEFAULT_MTU = 1500


def check_test_on_paths(
    test: ResolvedTest,
    paths: Sequence[PathSpec],
    out: Collector,
    *,
    variant_mtus: Sequence[tuple[str, int]] = (),
) -> None:
    """variant_mtus: (name, MTU) of each variant that sets one; the test runs at each."""
    spec, tool = test.case.spec, test.case.tool
    if tool is Tool.IPERF3 and spec.direction is Direction.DUAL:
        out.error(
            test.where("direction"),
            f"test {test.case.id!r}: iperf3 has no dual mode",
            hint="use direction: bidir (iperf3 --bidir), the same two flows on the client's "
            "own connection",
        )
    if tool is Tool.RRUL:
        _check_rrul(test, out)
        return
    if spec.until_stable:
        out.error(
            test.where("until_stable"),
            f"test {test.case.id!r}: until_stable adds streams to an RRUL test; "
            f"{tool.value} runs the streams it is given",
            hint="use tool: rrul, or remove until_stable:",
        )
    _check_iperf2_congestion(test, out)
    if spec.protocol is Proto.UDP and spec.length is not None and spec.length > MAX_UDP_PAYLOAD:
        out.error(
            test.where("length"),
            f"test {test.case.id!r}: UDP datagrams of {spec.length} bytes cannot be sent: "
            f"a datagram carries at most {MAX_UDP_PAYLOAD:,} bytes",
            hint=f"set length: {MAX_UDP_PAYLOAD} or less (1472 or less for one packet "
            "per datagram at MTU 1500)",
        )
    for path in paths:
        _check_dual_through_nat(test, path, out)
        if spec.protocol is Proto.UDP and (spec.length or 0) <= MAX_UDP_PAYLOAD:
            _check_datagram_fits(test, path, out)
            for name, mtu in variant_mtus:
                _check_datagram_fits(test, path, out, mtu=mtu, variant=name)
    if spec.protocol is Proto.UDP and spec.rate is None:
        out.warn(
            test.loc,
            f"test {test.case.id!r}: UDP without rate: iperf sends 1 Mbit/s by default",
            hint="set rate:, e.g. rate: 1000M for gigabit Ethernet",
        )


def _check_iperf2_congestion(test: ResolvedTest, out: Collector) -> None:
    # iperf2 (2.1.8) sets -Z on the client's own socket only: with -R it refuses ("-Z and
    # --reverse cannot be applied together"), with -d and -r it crashes (SIGSEGV), and with
    # --full-duplex the server's flow keeps the system's algorithm. iperf3's -C reaches the
    # server's data sockets too.
    spec = test.case.spec
    if not (
        test.case.tool is Tool.IPERF2
        and spec.protocol is Proto.TCP
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
    if not (
        test.case.tool is Tool.IPERF2
        and test.case.spec.direction is Direction.DUAL
        and path.topology is Topology.NAT
    ):
        return
    out.error(
        test.where("direction"),
        f"test {test.case.id!r}: iperf2 dual (-d) cannot cross the nat path {path.name!r}: "
        "the server must connect back to the client, which NAT refuses; iperf2 then "
        "measures one direction only and still exits 0",
        hint="use direction: bidir (iperf2 --full-duplex), down (-R), or iperf3 bidir; "
        "or limit this test to other paths with paths: [...]",
    )


def _check_datagram_fits(
    test: ResolvedTest,
    path: PathSpec,
    out: Collector,
    *,
    mtu: int | None = None,
    variant: str | None = None,
) -> None:
    spec = test.case.spec
    mtu = mtu or spec.mtu or (path.link.mtu if path.link is not None else DEFAULT_MTU)
    fits = mtu - IP_UDP_HEADERS
    where = f" (variant {variant!r})" if variant is not None else ""
    if spec.length is not None and spec.length > fits:
        out.warn(
            test.where("length"),
            f"test {test.case.id!r}: UDP datagrams of {spec.length} bytes do not fit MTU {mtu}"
            f"{where} (at most {fits}): fragmented on the wire",
            hint=f"set length: {fits} or less to measure unfragmented packets",
        )
    elif spec.length is None and test.case.tool is Tool.IPERF2 and fits < IPERF2_UDP_LENGTH:
        out.warn(
            test.where("mtu"),
            f"test {test.case.id!r}: iperf2 sends {IPERF2_UDP_LENGTH}-byte datagrams by "
            f"default: at MTU {mtu}{where} each one is fragmented on the wire",
            hint=f"set length: {fits} to send one packet per datagram",
        )


def _check_rrul(test: ResolvedTest, out: Collector) -> None:
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
