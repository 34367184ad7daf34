"""Whether a receiver's UDP counters can be true, and what the printed loss % hides."""

from __future__ import annotations

from wirespeed.model import ToolWarning, WarningKind
from wirespeed.tools.assemble import warning

# One iperf UDP stream is one thread on one socket; even the minimum-size frames of a
# 10GbE link (14.88 Mpps, LIMITS.md) are beyond what it can count. A receiver claiming
# more datagrams per second than that is not counting datagrams. iperf 2.0.13 servers
# print totals near 2^31 (the seeds' `2127956392/2137718708`): total = 2^31 - sent.
MAX_PLAUSIBLE_PPS_PER_STREAM = 15_000_000

# Both iperfs print loss with two significant digits: 99.5 % and above is `1e+02%`.
SATURATED_PERCENT = "1e+02%"


def implausible_counters(
    lost: int, total: int, seconds: float, sent_datagrams: int | None = None
) -> str | None:
    """Why these counters cannot be true, or None if they can."""
    if lost < 0 or total < 0:
        return f"negative datagram counters {lost}/{total}"
    if lost > total:
        return f"more datagrams lost than accounted for ({lost}/{total})"
    # The last datagram (iperf's FIN) is counted or not depending on version: allow slack.
    if sent_datagrams is not None and total > sent_datagrams * 1.01 + 10:
        return (
            f"the receiver accounts for {total} datagrams ({lost}/{total}) "
            f"but the sender sent {sent_datagrams}"
        )
    if seconds > 0 and total / seconds > MAX_PLAUSIBLE_PPS_PER_STREAM:
        return (
            f"{lost}/{total} datagrams in {seconds:g} s is {total / seconds:,.0f} per second, "
            "more than one iperf stream can count"
        )
    return None


def udp_warnings(
    stream: str, lost: int, total: int, printed_percent: str, why_implausible: str | None
) -> list[ToolWarning]:
    found = []
    if why_implausible is not None:
        found.append(
            warning(
                WarningKind.IMPLAUSIBLE_COUNTERS,
                f"stream {stream}: {why_implausible}; loss and jitter are not reported",
            )
        )
    if printed_percent.strip("() ") == SATURATED_PERCENT:
        if why_implausible is None and total > 0:
            detail = f"computed {100.0 * lost / total:.2f} %"
        else:
            detail = "the counters behind it are not credible"
        found.append(
            warning(
                WarningKind.LOSS_SATURATED,
                f"stream {stream}: loss printed as {SATURATED_PERCENT} "
                f"(99.5 % or more, two significant digits); {detail}",
            )
        )
    return found
