"""What a latency prober measured: one series of probes, whichever tool sent them.

irtt gives each probe's round trip and both one-way delays (client to server, "up", and
back, "down"); ping gives round trips alone. One-way delays need the two clocks to agree
for their absolute value, not for a change: a constant offset between the clocks cancels
in "loaded minus idle", so the increase per direction holds between unsynchronized hosts
(a clock drifting during the test does not cancel; NTP's slewing is far below a queue).
"""

from __future__ import annotations

from dataclasses import dataclass

# A probed trial's schedule (run/probes.py runs it; the HTML report draws on its clock):
# IDLE_SECONDS of idle probes, then from the load's start plus its warmup until
# END_MARGIN_SECONDS before its end.
IDLE_SECONDS = 3.0
WARMUP_SECONDS = 1.0
END_MARGIN_SECONDS = 0.5
MIN_LOADED_SECONDS = 1.0


def loaded_window(duration: float) -> tuple[float, float]:
    """(seconds after the load starts when the probes start, how long they run)."""
    warmup = min(WARMUP_SECONDS, duration / 5)
    return warmup, max(duration - warmup - END_MARGIN_SECONDS, MIN_LOADED_SECONDS)


@dataclass(frozen=True)
class ProbeSeries:
    """The probes of one phase (idle or loaded), delays in milliseconds."""

    tool: str  # "irtt" or "ping"
    sent: int  # probes whose fate is known: answered, or lost
    rtt_ms: tuple[float, ...]  # each answered probe's round trip
    up_ms: tuple[float, ...] = ()  # one-way client -> server (irtt's send delay)
    down_ms: tuple[float, ...] = ()  # one-way server -> client (irtt's receive delay)
    lost_up: int | None = None  # lost on the way out (irtt tells the direction)
    lost_down: int | None = None
    # Each answered probe's place in the phase, counted from 0 (a lost one leaves a gap):
    # a prober sends at an even pace, so place / sent is its time as a share of the phase.
    seq: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if self.sent < len(self.rtt_ms):
            raise ValueError(f"{len(self.rtt_ms)} answers to {self.sent} probes")
        if self.seq and len(self.seq) != len(self.rtt_ms):
            raise ValueError(f"{len(self.seq)} places for {len(self.rtt_ms)} answers")

    @property
    def lost(self) -> int:
        return self.sent - len(self.rtt_ms)

    @property
    def loss_percent(self) -> float | None:
        return None if self.sent == 0 else 100.0 * self.lost / self.sent
