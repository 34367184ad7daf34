"""The words of a forwarding-rate search, shared by the algorithms, the run loop and the
reports. Loads are packets (frames) per second offered by the generator, per direction.

Frame sizes follow RFC 2544: an Ethernet frame counted with its FCS (64 .. 1518 bytes at
MTU 1500), without preamble and inter-frame gap.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from wirespeed.model import ModelError

# RFC 2544 section 9.1's frame sizes for Ethernet.
RFC2544_FRAME_SIZES = (64, 128, 256, 512, 1024, 1280, 1518)
# A trial whose generator sent less than this share of the intended load tested the
# generator, not the device: its loss is never counted against the device.
GENERATOR_SHORTFALL = 0.995


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise ModelError(message)


@dataclass(frozen=True)
class Goal:
    """A search goal (RFC 9971 section 4.6): the loss a load may show and how often.

    A load is an upper bound when more than `exceed_ratio` of the goal's duration sum
    was spent in trials whose loss exceeded `loss_ratio` (even if the trials still
    missing all turned out well), and a lower bound when it is certain that no more
    than that was. `duration_sum` None: one full-length trial decides (RFC 2544)."""

    name: str  # "NDR", "PDR"
    loss_ratio: float = 0.0  # 0 for NDR; 0.005 for a PDR of 0.5 %
    exceed_ratio: float = 0.5
    final_duration: float = 10.0  # seconds of one full-length trial
    duration_sum: float | None = None  # seconds of full-length trials that decide
    width: float = 0.01  # the bounds' relative distance at the end: (upper-lower)/upper

    def __post_init__(self) -> None:
        _require(bool(self.name), "a goal needs a name")
        _require(0 <= self.loss_ratio < 1, f"loss ratio must be in [0, 1): {self.loss_ratio}")
        _require(0 <= self.exceed_ratio < 1, f"exceed ratio must be in [0, 1): {self.exceed_ratio}")
        _require(self.final_duration > 0, "the final trial duration must be positive")
        _require(
            self.duration_sum is None or self.duration_sum >= self.final_duration,
            "the duration sum must be at least one final trial",
        )
        _require(0 < self.width < 1, f"width must be in (0, 1): {self.width}")

    @property
    def decisive_duration(self) -> float:
        """RFC 9971's goal duration sum: seconds of full-length trials that decide."""
        return self.final_duration if self.duration_sum is None else self.duration_sum


@dataclass(frozen=True)
class TrialResult:
    """What one trial at one load gave, counted at the receiver (RFC 9971 section 4.5).

    `intended` is the load asked of the generator per leg (per direction: a link's
    limits are per direction, so a `both` trial asks it of each of its two legs),
    `duration` the time asked for. `sent` and `received` count every leg together.
    `offered_duration` is how long the generator was able to send (MLRsearch's offered
    duration): a generator with a coarser timer sends for a little less than asked
    (iperf2 counts in hundredths of a second: `-t 0.7746` sends for 0.77 s), and that
    is its timer, not a shortfall; a generator sending a count of packets that cannot
    keep up takes longer than asked (tcpreplay), and that is its shortfall. `offered`
    is what it sent per leg and second of that, `forwarding_rate` what arrived. A trial
    whose generator fell short of the intended load (below GENERATOR_SHORTFALL) is
    generator-limited."""

    intended: float  # packets/s asked for, per leg
    duration: float  # seconds the generator was asked to send
    sent: int  # packets the generator sent, every leg together
    received: int  # packets the receiver counted, every leg together
    offered_duration: float | None = None  # seconds it could send; None: `duration`
    legs: int = 1  # streams of `intended` packets/s sent at once (2 for `both`)

    def __post_init__(self) -> None:
        _require(self.intended > 0, "the intended load must be positive")
        _require(self.duration > 0, "a trial lasts a positive time")
        _require(
            self.offered_duration is None or self.offered_duration > 0,
            "a trial sends for a positive time",
        )
        _require(self.legs >= 1, "a trial has at least one leg")
        _require(self.sent >= 0 and self.received >= 0, "packet counts are not negative")

    @property
    def sending_seconds(self) -> float:
        return self.duration if self.offered_duration is None else self.offered_duration

    @property
    def offered(self) -> float:
        """Packets/s the generator sent per leg."""
        return self.sent / (self.sending_seconds * self.legs)

    @property
    def forwarding_rate(self) -> float:
        """Packets/s per leg that reached the receiver (RFC 2285's forwarding rate)."""
        return self.received / (self.sending_seconds * self.legs)

    @property
    def loss_ratio(self) -> float:
        """Lost over sent; 0 when more arrived than were sent (duplicates), 1 when none
        were sent."""
        if self.sent == 0:
            return 1.0
        return max(0.0, (self.sent - self.received) / self.sent)

    @property
    def generator_limited(self) -> bool:
        return self.offered < self.intended * GENERATOR_SHORTFALL


# Measure one trial: (intended load in packets/s, duration in seconds) -> its result.
# The run loop's measurer runs the generator through the device; tests simulate one.
Measurer = Callable[[float, float], TrialResult]


@dataclass(frozen=True)
class SearchLimits:
    """The loads a search may try, and how long it may take."""

    max_load: float  # packets/s: the link's frame-rate ceiling, or what the plan allows
    min_load: float  # packets/s: below it the search gives up (the device forwards ~nothing)
    initial_duration: float = 1.0  # seconds of the first, shortest trials
    max_trials: int = 100  # a search that has not converged by then stops and says so

    def __post_init__(self) -> None:
        _require(0 < self.min_load < self.max_load, "need 0 < min_load < max_load")
        _require(self.initial_duration > 0, "the initial trial duration must be positive")
        _require(self.max_trials >= 1, "a search needs at least one trial")


@dataclass(frozen=True)
class GoalResult:
    """What a search found for one goal.

    `lower` is the relevant lower bound (RFC 9971 section 4.7: the highest load that is a
    lower bound with no upper bound below it): the throughput for this goal. `upper`
    the lowest upper bound above it. `conditional_throughput` the average forwarding rate
    of the full-length trials at `lower` (RFC 9971 section 4.8). `generator_limited`:
    the generator could not offer more than `lower`, so the device may forward more."""

    goal: Goal
    lower: float | None  # None: even min_load lost too much
    upper: float | None  # None: no load up to the maximum lost too much
    conditional_throughput: float | None
    generator_limited: bool = False

    @property
    def width(self) -> float | None:
        if self.lower is None or self.upper is None:
            return None
        return (self.upper - self.lower) / self.upper

    @property
    def converged(self) -> bool:
        """The bounds are as close as the goal asks, or there is nothing above `lower`
        to find (the maximum load, or the generator's ceiling, passed)."""
        if self.lower is None:
            return self.upper is not None  # min_load failed: that is an answer too
        if self.upper is None:
            return True
        width = self.width
        return width is not None and width <= self.goal.width + 1e-9


@dataclass(frozen=True)
class SearchResult:
    """A whole search: each goal's result and every trial in the order run."""

    goals: tuple[GoalResult, ...]
    trials: tuple[TrialResult, ...]
    algorithm: str  # "mlrsearch", "rfc2544-binary", "ndr-bench"
    # The highest load the generator actually offered when a trial fell short: what the
    # report names as the generator's ceiling. None: no trial was generator-limited.
    generator_ceiling: float | None = None
    stopped: str | None = None  # why the search stopped before converging, if it did

    @property
    def seconds_of_traffic(self) -> float:
        return sum(trial.duration for trial in self.trials)

    def goal(self, name: str) -> GoalResult:
        for result in self.goals:
            if result.goal.name == name:
                return result
        raise KeyError(name)
