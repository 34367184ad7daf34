"""What cannot work on the wire, found before anything runs.

These are the traps of the seeds and of LIMITS.md. What every traffic test shares is
checked here: UDP datagrams that do not fit the MTU, those no datagram can carry, UDP
without a rate, and `until_stable` on a kind that runs the streams it is given. What is
one tool's own (iperf2's `-d` through NAT, iperf3's missing dual mode, iperf2's
congestion control on the server's flows, RRUL's fixed streams) its kind names as its
`checks` hook (kinds/, plan/kind_checks.py), run first.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Protocol, cast

from wirespeed.model import PathSpec, Proto
from wirespeed.plan.collect import Collector
from wirespeed.plan.resolve import ResolvedTest
from wirespeed.trial_kind import hooks_of, kind_of

IP_UDP_HEADERS = 28  # IPv4 20 + UDP 8: a datagram payload fits one packet up to MTU - 28
IPERF2_UDP_LENGTH = 1470  # iperf2's default datagram payload (-l)
# The largest payload one UDP datagram carries: IPv4's 16-bit total length (65,535) less
# its header and UDP's. Both iperfs fail on a longer -l only once the test runs.
MAX_UDP_PAYLOAD = 65_535 - IP_UDP_HEADERS
DEFAULT_MTU = 1500


@dataclass(frozen=True)
class RunsOn:
    """Where a test runs, for its kind's checks: the paths it runs on, the (name, MTU)
    of each variant that sets one (the test runs at each), and the plan's host names (a
    path whose client is none of them is the lab's)."""

    paths: Sequence[PathSpec]
    variant_mtus: Sequence[tuple[str, int]]
    hosts: Collection[str]


class KindChecks(Protocol):
    """A kind's `checks` hook (kinds/hooks.py): the problems of `test` that are its kind's
    own, where it runs."""

    def __call__(self, test: ResolvedTest, on: RunsOn, out: Collector) -> None: ...


def check_test_on_paths(test: ResolvedTest, on: RunsOn, out: Collector) -> None:
    """Its kind's own checks first, then those of any test's settings where it runs."""
    kind = kind_of(test.case.tool)
    kind_checks = cast(KindChecks | None, hooks_of(test.case.tool).checks)
    if kind_checks is not None:
        kind_checks(test, on, out)
    if kind.own_streams:
        return  # its protocol, direction and datagrams are for its own checks to judge
    spec = test.case.spec
    if spec.until_stable:
        out.error(
            test.where("until_stable"),
            f"test {test.case.id!r}: until_stable adds streams to an RRUL test; "
            f"{test.case.tool} runs the streams it is given",
            hint="use tool: rrul, or remove until_stable:",
        )
    if spec.protocol is Proto.UDP and spec.length is not None and spec.length > MAX_UDP_PAYLOAD:
        out.error(
            test.where("length"),
            f"test {test.case.id!r}: UDP datagrams of {spec.length} bytes cannot be sent: "
            f"a datagram carries at most {MAX_UDP_PAYLOAD:,} bytes",
            hint=f"set length: {MAX_UDP_PAYLOAD} or less (1472 or less for one packet "
            "per datagram at MTU 1500)",
        )
    if spec.protocol is Proto.UDP and spec.length is not None and spec.length <= MAX_UDP_PAYLOAD:
        for path in on.paths:
            for at in (None, *on.variant_mtus):
                _check_datagram_fits(test, path, out, at)
    if spec.protocol is Proto.UDP and spec.rate is None:
        out.warn(
            test.loc,
            f"test {test.case.id!r}: UDP without rate: iperf sends 1 Mbit/s by default",
            hint="set rate:, e.g. rate: 1000M for gigabit Ethernet",
        )


# A variant that sets an MTU, as (its name, the MTU); None: the test's own or the path's.
AtMtu = tuple[str, int] | None


def datagram_room(test: ResolvedTest, path: PathSpec, at: AtMtu) -> tuple[int, int, str]:
    """The MTU the test's datagrams meet on `path` (a variant's, else the test's, else
    the path link's), the UDP payload that fits it, and what a message adds when the
    MTU is a variant's."""
    variant, mtu = at if at is not None else (None, None)
    mtu = mtu or test.case.spec.mtu or (path.link.mtu if path.link is not None else DEFAULT_MTU)
    return mtu, mtu - IP_UDP_HEADERS, f" (variant {variant!r})" if variant is not None else ""


def _check_datagram_fits(test: ResolvedTest, path: PathSpec, out: Collector, at: AtMtu) -> None:
    length = test.case.spec.length
    mtu, fits, in_variant = datagram_room(test, path, at)
    if length is not None and length > fits:
        out.warn(
            test.where("length"),
            f"test {test.case.id!r}: UDP datagrams of {length} bytes do not fit MTU {mtu}"
            f"{in_variant} (at most {fits}): fragmented on the wire",
            hint=f"set length: {fits} or less to measure unfragmented packets",
        )
