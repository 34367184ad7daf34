"""A simulated device and generator for the search algorithms: pure Python, seeded.

The device forwards at most `capacity` packets/s: offered more, it loses the rest
(loss ratio 1 - capacity/offered). Optionally:
  - `knee`: a soft knee (a PDR-style device): from `knee` up to `capacity` it already
    loses a little, growing to KNEE_LOSS at capacity, so its NDR is the knee and its
    PDR lies between knee and capacity;
  - `generator`: the generator offers at most this many packets/s (sent = min(intended,
    generator) x duration); `generator_loss`: the share the receiver then loses too
    (on one machine a saturated sender starves its receiver);
  - `spike_probability`: a trial loses `spike_packets` packets with this probability,
    as real machines now and then do (a timer, a cron job, an ARP); `spike_calls`: the
    trials (numbered from 1) that do so for certain;
  - `noise`: the capacity of each trial varies by this relative standard deviation.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from wirespeed.search.model import TrialResult

KNEE_LOSS = 0.01  # the soft knee's loss ratio at capacity


@dataclass
class SimulatedDevice:
    capacity: float
    knee: float | None = None
    generator: float | None = None
    generator_loss: float = 0.0
    spike_probability: float = 0.0
    spike_packets: int = 3
    spike_calls: frozenset[int] = frozenset()
    noise: float = 0.0
    seed: int = 0
    calls: list[tuple[float, float]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._random = random.Random(self.seed)

    def loss_ratio(self, offered: float, capacity: float) -> float:
        if self.knee is None or offered <= self.knee:
            return max(0.0, 1.0 - capacity / offered)
        if offered <= capacity:
            return KNEE_LOSS * ((offered - self.knee) / (capacity - self.knee)) ** 2
        return 1.0 - (1.0 - KNEE_LOSS) * capacity / offered

    def __call__(self, intended: float, duration: float) -> TrialResult:
        self.calls.append((intended, duration))
        capacity = self.capacity
        if self.noise:
            capacity *= 1.0 + self._random.gauss(0.0, self.noise)
        offered = intended if self.generator is None else min(intended, self.generator)
        sent = round(offered * duration)
        received = round(sent * (1.0 - self.loss_ratio(offered, capacity)))
        if self.generator is not None and intended > self.generator:
            received = round(received * (1.0 - self.generator_loss))
        spike = self.spike_probability and self._random.random() < self.spike_probability
        if spike or len(self.calls) in self.spike_calls:
            received = max(0, received - self.spike_packets)
        return TrialResult(intended=intended, duration=duration, sent=sent, received=received)
