"""A forwarding-rate search's settings: `options:` of a test with `tool: forwarding`.

    tests:
      - id: fwd
        tool: forwarding
        options:
          frame_sizes: [64, 128, 256, 512, 1024, 1280, 1518]  # RFC 2544's, with FCS
          directions: [up, down]        # both: at once; on a nat path also in, out
          goals: [{name: NDR, loss: 0}, {name: PDR, loss: 0.5%}]
          final_duration: 10            # s; default 10 in the lab, 60 on devices
          width: 1%                     # how close the bounds end: (upper-lower)/upper
          generator: tcpreplay          # iperf2 (default), tcpreplay, auto
          cpus: 2                       # sending processes per direction, each a share
          senders: [pc2]                # more hosts sending up with the client (hosts:)

Frame sizes are Ethernet frames counted with FCS, without preamble and gap (RFC 2544):
a UDP datagram of payload L makes a frame of L + 46 bytes.
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)

from wirespeed.model import BenchSpec, TestCase, frozen_options
from wirespeed.search.frames import MIN_FRAME, UDP_FRAME_OVERHEAD
from wirespeed.search.model import RFC2544_FRAME_SIZES

MAX_FRAME = 9018  # a 9000-byte jumbo MTU's frame
MAX_PPS = 100_000_000  # 100 Mpps: more than 100 GbE carries at 64 B; above is a typo
LAB_FINAL_DURATION = 10.0  # seconds of a full-length trial in the lab
DEVICE_FINAL_DURATION = 60.0  # RFC 2544 section 24: at least 60 s on real devices
MIN_TRIAL_SECONDS = 0.1  # shorter, a trial measures the generator's start-up
DIRECTIONS = ("up", "down", "both", "in", "out")
NAT_ONLY = ("in", "out")  # outside to inside (a port forward), inside to outside
GENERATORS = ("iperf2", "tcpreplay", "auto")  # run/search_generators.py
MAX_CPUS = 8  # iperf2's streams take ports 5800 + 10 k: the lab NAT forwards up to 5899
MAX_SENDERS = 5  # each sending host its own ports: 5800, 5802 .. 5808 (+ 10 k per stream)
_PPS = re.compile(r"(?P<number>[0-9]+(?:\.[0-9]+)?)\s*(?P<prefix>[kKmM]?)pps")
_PERCENT = re.compile(r"(?P<number>[0-9]+(?:\.[0-9]+)?)\s*%")


def _pps(value: object) -> float:
    """15000, "15000pps", "15kpps", "1.5Mpps" -> packets per second."""
    if isinstance(value, bool):
        raise ValueError(f"expected a packet rate such as 15kpps or 15000, got {value!r}")
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str) and (found := _PPS.fullmatch(value.strip())):
        scale = {"": 1, "k": 1e3, "K": 1e3, "m": 1e6, "M": 1e6}[found["prefix"]]
        number = float(found["number"]) * scale
    else:
        raise ValueError(f"expected a packet rate such as 15kpps, 1.5Mpps or 15000, got {value!r}")
    if not 1 <= number <= MAX_PPS:
        raise ValueError(f"a packet rate must be between 1 and 100 Mpps, got {value!r}")
    return number


def ratio_of(percent_text: str) -> float:
    """ "0.5%" -> 0.005: what the options keep, as the plan wrote it, made a ratio."""
    return float(percent_text.rstrip("%")) / 100


def _ratio(value: object, what: str) -> float:
    """ "0.5%" -> 0.005; a bare 0 is no loss. A bare number other than 0 is refused:
    is 0.5 a half or half a percent?"""
    if value == 0 and not isinstance(value, bool):
        return 0.0
    found = _PERCENT.fullmatch(value.strip()) if isinstance(value, str) else None
    if found is None:
        raise ValueError(f"write {what} as a percentage, such as 0.5% (or 0), got {value!r}")
    share = float(found["number"]) / 100
    if not 0 <= share < 1:
        raise ValueError(f"{what} must be below 100%, got {value!r}")
    return share


def _percent_text(share: float) -> str:
    # Kept as text ("0.5%") so that options read back from the store validate again.
    return f"{share * 100:.10g}%"


def _loss(value: object) -> str:
    return _percent_text(_ratio(value, "the loss"))


def _width(value: object) -> str:
    share = _ratio(value, "the width")
    if not 0.0001 <= share <= 0.5:
        raise ValueError(f"the width must be between 0.01% and 50%, got {value!r}")
    return _percent_text(share)


def _frame(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"expected a frame size in bytes such as 64 or 1518, got {value!r}")
    if value < MIN_FRAME:
        raise ValueError(
            f"{value} B is below Ethernet's minimum frame of 64 bytes (with FCS); "
            f"a UDP payload of L bytes makes a frame of L + {UDP_FRAME_OVERHEAD}"
        )
    if value > MAX_FRAME:
        raise ValueError(f"{value} B is above a 9000-byte MTU's frame of {MAX_FRAME} bytes")
    return value


def _direction(value: object) -> str:
    text = value.strip().lower() if isinstance(value, str) else value
    if text not in DIRECTIONS:
        raise ValueError(f"expected one of {', '.join(DIRECTIONS)}, got {value!r}")
    assert isinstance(text, str)
    return text


def _generator(value: object) -> str:
    text = value.strip().lower() if isinstance(value, str) else value
    if text == "trafgen":
        raise ValueError(
            "trafgen paces by whole seconds (asked for 10,000 packets/s it sends them in "
            "0.1 s and waits out the second): a device sees its top speed in bursts; "
            "use tcpreplay (Debian: tcpreplay), which paces every packet"
        )
    if text not in GENERATORS:
        raise ValueError(f"expected one of {', '.join(GENERATORS)}, got {value!r}")
    assert isinstance(text, str)
    return text


Pps = Annotated[float, BeforeValidator(_pps)]
Loss = Annotated[str, BeforeValidator(_loss)]  # "0.5%"; ratio_of() makes it 0.005
Width = Annotated[str, BeforeValidator(_width)]
Frame = Annotated[int, BeforeValidator(_frame)]
DirectionWord = Annotated[str, BeforeValidator(_direction)]
Seconds = Annotated[float, Field(strict=False, gt=0, le=3600, allow_inf_nan=False)]


class GoalOptions(BaseModel):
    """One search goal: NDR (no loss) or a PDR (a loss ratio), RFC 9971's terms."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Annotated[str, Field(min_length=1, max_length=20, pattern=r"^[A-Za-z0-9][\w.%+-]*$")]
    loss: Loss = "0%"
    # The share of the decisive duration that may see more loss than `loss` (RFC 9971).
    exceed_ratio: Annotated[float, Field(ge=0, lt=1)] = 0.5


def _default_goals() -> list[GoalOptions]:
    # Through the validators, as a plan would write them.
    return [
        GoalOptions.model_validate({"name": "NDR", "loss": 0}),
        GoalOptions.model_validate({"name": "PDR", "loss": "0.5%"}),
    ]


class ForwardingOptions(BaseModel):
    """`options:` of a forwarding-rate search, checked where the plan says them."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    frame_sizes: list[Frame] = Field(default=list(RFC2544_FRAME_SIZES), min_length=1)
    directions: list[DirectionWord] = Field(default=["up"], min_length=1)
    goals: list[GoalOptions] = Field(default_factory=_default_goals, min_length=1, max_length=4)
    initial_duration: Seconds = 1.0
    final_duration: Seconds | None = None  # None: 10 s in the lab, 60 s on devices
    # Seconds of full-length trials that decide a load; None: one trial (RFC 2544).
    duration_sum: Seconds | None = None
    width: Width = "1%"
    max_rate: Pps | None = None  # None: the link's frame-rate ceiling
    min_rate: Pps = 100.0
    max_trials: Annotated[int, Field(ge=2, le=1000)] = 60
    # Which program sends (run/search_generators.py): iperf2 everywhere; tcpreplay
    # (paced raw frames, a higher packet rate); auto: tcpreplay where the sender has it.
    generator: Annotated[str, BeforeValidator(_generator)] = "iperf2"
    # Processes sending each leg, each its share of the load (one per CPU to use).
    cpus: Annotated[int, Field(strict=True, ge=1, le=MAX_CPUS)] = 1
    # Hosts (of hosts:) that send up (or out) beside the path's client, the load shared
    # between them all, their counts summed: a load no one machine can send.
    senders: list[Annotated[str, Field(min_length=1, max_length=64)]] = Field(
        default_factory=list, max_length=MAX_SENDERS - 1
    )

    @field_validator("initial_duration", "final_duration")
    @classmethod
    def _long_enough(cls, seconds: float | None) -> float | None:
        if seconds is not None and seconds < MIN_TRIAL_SECONDS:
            raise ValueError(
                f"a trial of {seconds:g} s is shorter than {MIN_TRIAL_SECONDS:g} s: it measures "
                "the generator's start, not the device (iperf2 asked for 0.01 s at 15,000 "
                "packets/s sends 99 of 150)"
            )
        return seconds

    @model_validator(mode="after")
    def _consistent(self) -> ForwardingOptions:
        if len(set(self.frame_sizes)) != len(self.frame_sizes):
            raise ValueError(f"a frame size is listed twice in {self.frame_sizes}")
        if len(set(self.directions)) != len(self.directions):
            raise ValueError(f"a direction is listed twice in {self.directions}")
        names = [goal.name for goal in self.goals]
        if len(set(names)) != len(names):
            raise ValueError(f"a goal name is used twice in {names}")
        final = self.final_duration
        if final is not None and self.initial_duration > final:
            raise ValueError("initial_duration must not be longer than final_duration")
        if final is not None and self.duration_sum is not None and self.duration_sum < final:
            raise ValueError("duration_sum must be at least one final_duration")
        if len(set(self.senders)) != len(self.senders):
            raise ValueError(f"a sender is listed twice in {self.senders}")
        if self.max_rate is not None and self.max_rate <= self.min_rate:
            raise ValueError("max_rate must be above min_rate")
        return self

    def final_seconds(self, in_lab: bool) -> float:
        if self.final_duration is not None:
            return self.final_duration
        return LAB_FINAL_DURATION if in_lab else DEVICE_FINAL_DURATION


# What a search cell takes, for the progress bar's ETA only: a few full-length trials
# and a handful of short ones (docs/benchmarks.md has what searches took).
_FULL_TRIALS_PER_CELL = 3
_SHORT_TRIALS_PER_CELL = 8
_SECONDS_PER_TRIAL_OVERHEAD = 0.4


def estimated_seconds(test: TestCase, in_lab: bool = True) -> float:
    """Roughly how long a search test takes, every frame size and direction: the
    forwarding kind's `estimate` hook (kinds/forwarding.py)."""
    options = test.settings_as(ForwardingOptions)
    cell = (
        _FULL_TRIALS_PER_CELL * options.final_seconds(in_lab)
        + _SHORT_TRIALS_PER_CELL * options.initial_duration
        + (_FULL_TRIALS_PER_CELL + _SHORT_TRIALS_PER_CELL) * _SECONDS_PER_TRIAL_OVERHEAD
    )
    return cell * len(options.frame_sizes) * len(options.directions)


def with_final_duration(
    options: ForwardingOptions, seconds: float
) -> tuple[BenchSpec, ForwardingOptions]:
    """The search's options with full-length trials of `seconds` (`run --duration`):
    its first trials no longer than that, its duration sum at least one trial; as the
    store keeps them and as its settings. ValueError for a duration no search trial may
    have."""
    if seconds < MIN_TRIAL_SECONDS:
        raise ValueError(
            f"a forwarding search's trials last at least {MIN_TRIAL_SECONDS:g} s, got {seconds:g}"
        )
    duration_sum = options.duration_sum
    changed = options.model_copy(
        update={
            "final_duration": seconds,
            "initial_duration": min(options.initial_duration, seconds),
            "duration_sum": None
            if duration_sum is None or duration_sum < seconds
            else duration_sum,
        }
    )
    return BenchSpec(options=frozen_options(changed.model_dump(mode="json"))), changed
