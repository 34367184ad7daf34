"""Forwarding-rate searches as a run stores them, until real searches can run here.

The searches are made by a small stand-in below (a bisection with short trials first and
full-length trials at the end, as MLRsearch does), against a device whose limits are
known: the lab's 15,000 pps nftables limit on a gigabit bridge (Br0), which at 1518 B
meets a 170 Mbit/s (wire) policer first, as seed 004's "1500 byte packets - 168 Mbit/s
in, 173 Mbit/s out ~14kpps" did; and an unshaped NAT path (no frame-rate ceiling) whose
device outruns a generator that offers at most 180,000 pps at 64 B. Their logs and
measurements are made by search/log.py and search/measurements.py, and wrapped in Trial
and TrialOutcome as the run loop wraps them: one wirespeed trial per test, path and
repetition, holding every cell (frame size x direction) of its search.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from wirespeed.model import (
    BenchSpec,
    LinkModel,
    Measurement,
    PathSpec,
    Proto,
    RawOutput,
    Result,
    Side,
    TestCase,
    TestSpec,
    Tool,
    Topology,
    Trial,
    TrialOutcome,
    TrialStatus,
    frozen_options,
)
from wirespeed.plan.forwarding import ForwardingOptions
from wirespeed.search.frames import frames_per_second, l1_bits_per_second, udp_payload_for_frame
from wirespeed.search.log import SearchLog, to_json
from wirespeed.search.measurements import measurements_of
from wirespeed.search.model import (
    RFC2544_FRAME_SIZES,
    Goal,
    GoalResult,
    SearchResult,
    TrialResult,
)

GBE = LinkModel(name="gbe", rate_bps=1_000_000_000)
UNSHAPED = LinkModel(name="unshaped", rate_bps=None)
START = 1_700_000_000.0
IPERF_VERSION = "2.1.9"
NDR = Goal("NDR", loss_ratio=0.0, final_duration=10.0, width=0.01)
PDR = Goal("PDR", loss_ratio=0.005, final_duration=10.0, width=0.01)
GOALS = (NDR, PDR)
DEVICE_PPS = 15_000.0  # the lab DUT's nftables limit, per direction
POLICER_BPS = 170_000_000  # wire bits/s: binds before the packet limit at 1518 B
GENERATOR_PPS = 180_000.0  # what the NAT path's client can send at 64 B
UNSHAPED_MAX_LOAD = 1_000_000.0  # the plan's highest load where the link has no ceiling
DOWN_FACTOR = 0.98  # the device forwards a little less towards the client
# Each repetition's device: a little faster or slower, as the lab's are.
REPETITION_FACTORS = (1.0, 0.997, 1.002)


def bridge_path() -> PathSpec:
    return PathSpec(
        name="Br0", topology=Topology.BRIDGE, client="laptop", server="server", dut="r4s", link=GBE
    )


def nat_path() -> PathSpec:
    return PathSpec(
        name="NAT", topology=Topology.NAT, client="pi", server="server", dut="r4s", link=UNSHAPED
    )


def forwarding_test(
    test_id: str = "fwd",
    frames: Sequence[int] = RFC2544_FRAME_SIZES,
    directions: Sequence[str] = ("up", "down"),
) -> TestCase:
    options = frozen_options(
        ForwardingOptions.model_validate(
            {
                "frame_sizes": list(frames),
                "directions": list(directions),
                "goals": [{"name": g.name, "loss": f"{g.loss_ratio:.2%}"} for g in GOALS],
            }
        ).model_dump(mode="json")
    )
    return TestCase(
        id=test_id,
        name="forwarding rate",
        tool=Tool.FORWARDING,
        spec=TestSpec(protocol=Proto.UDP),
        search=BenchSpec(options=options),
    )


@dataclass(frozen=True)
class Device:
    """What the path forwards per direction: packets/s at a frame size."""

    pps: float = DEVICE_PPS
    policer_bps: float | None = POLICER_BPS

    def capacity(self, frame: int, direction: str, factor: float) -> float:
        pps = self.pps
        if self.policer_bps is not None:
            pps = min(pps, self.policer_bps / l1_bits_per_second(1.0, frame))
        return pps * factor * (DOWN_FACTOR if direction == "down" else 1.0)


def _trial(intended: float, duration: float, capacity: float, generator: float) -> TrialResult:
    sent = round(min(intended, generator) * duration)
    # A policer passes its rate; what it drops above that is lost.
    received = min(sent, round(capacity * duration))
    return TrialResult(intended=intended, duration=duration, sent=sent, received=received)


def _lossy(trial: TrialResult, goal: Goal) -> bool:
    return trial.loss_ratio > goal.loss_ratio


def simulate(
    capacity: float,
    max_load: float,
    *,
    generator: float = float("inf"),
    max_trials: int = 100,
) -> SearchResult:
    """A search of capacity: 1 s trials until the bounds are 5 % apart, then 10 s trials
    until they are 1 % apart, goal after goal; at most max_trials (then it says so)."""
    trials: list[TrialResult] = []
    stopped = None
    results = []
    for goal in GOALS:
        lower, upper = 0.0, max_load
        first = _trial(max_load, 1.0, capacity, generator)
        trials.append(first)
        if first.generator_limited:  # the generator's own ceiling is the highest load
            upper = first.offered
        lower = upper if not _lossy(first, goal) else first.forwarding_rate * 0.9
        while len(trials) < max_trials and (upper - lower) / upper > goal.width:
            duration = 1.0 if (upper - lower) / upper > 0.05 else goal.final_duration
            load = (lower + upper) / 2
            trial = _trial(load, duration, capacity, generator)
            trials.append(trial)
            if _lossy(trial, goal):
                upper = load
            else:
                lower = load
        at_lower = [t for t in trials if t.intended == lower and t.duration == goal.final_duration]
        if not at_lower:  # a lower bound is confirmed by a full-length trial
            at_lower = [_trial(lower, goal.final_duration, capacity, generator)]
            trials += at_lower
        limited = first.generator_limited and lower >= first.offered * 0.98
        results.append(
            GoalResult(
                goal=goal,
                lower=lower,
                upper=None if limited or not _lossy(first, goal) else upper,
                conditional_throughput=sum(t.forwarding_rate for t in at_lower) / len(at_lower),
                generator_limited=limited,
            )
        )
        if len(trials) >= max_trials and (upper - lower) / upper > goal.width:
            stopped = f"reached its limit of {max_trials} trials before the bounds met"
    ceiling = (
        max(t.offered for t in trials if t.generator_limited)
        if any(t.generator_limited for t in trials)
        else None
    )
    return SearchResult(
        goals=tuple(results),
        trials=tuple(trials),
        algorithm="mlrsearch",
        generator_ceiling=ceiling,
        stopped=stopped,
    )


def search_log(
    frame: int,
    direction: str,
    path: PathSpec,
    *,
    device: Device = Device(),
    factor: float = 1.0,
    generator: float = float("inf"),
    max_trials: int = 100,
) -> SearchLog:
    link = path.link
    rate = None if link is None else link.rate_bps
    ceiling = None if rate is None else frames_per_second(rate, frame)
    result = simulate(
        device.capacity(frame, direction, factor),
        ceiling or UNSHAPED_MAX_LOAD,
        generator=generator,
        max_trials=max_trials,
    )
    return SearchLog(frame, direction, result, link_rate_bps=rate, ceiling_pps=ceiling)


def _iperf_outputs(log: SearchLog, path: PathSpec) -> list[RawOutput]:
    """The generator's and the receiver's runs of each of the search's trials, as the
    run loop keeps them beside the log."""
    payload = udp_payload_for_frame(log.frame)
    found = []
    for trial in log.result.trials:
        rate = round(trial.intended * payload * 8)
        client = ("iperf", "-c", path.server, "-u", "-l", str(payload), "-b", f"{rate}")
        found.append(RawOutput(path.client, Side.CLIENT, client, "text", "(the output)"))
        server = ("iperf", "-s", "-u", "-e")
        found.append(RawOutput(path.server, Side.SERVER, server, "text", "(the output)"))
    return found


def forwarding_outcome(
    test: TestCase,
    path: PathSpec,
    logs: Sequence[SearchLog],
    *,
    repetition: int = 1,
    variant: str = "default",
    iperf_outputs: bool = True,
) -> TrialOutcome:
    """One wirespeed trial of a forwarding test: every cell's search, cell after cell."""
    raw: list[RawOutput] = []
    measurements: list[Measurement] = []
    for log in logs:
        raw.append(RawOutput(path.client, Side.CLIENT, log.argv(), "json", to_json(log)))
        if iperf_outputs:
            raw += _iperf_outputs(log, path)
        measurements += measurements_of(log)
    result = Result(
        tool=Tool.FORWARDING,
        protocol=Proto.UDP,
        directions=(),
        measurements=tuple(measurements),
        tool_version=IPERF_VERSION,
    )
    seconds = sum(log.result.seconds_of_traffic for log in logs)
    started = START + repetition * 10_000
    return TrialOutcome(
        trial=Trial(test, path, variant=variant, repetition=repetition),
        status=TrialStatus.OK,
        started_at=started,
        finished_at=started + seconds * 1.2,
        result=result,
        raw=tuple(raw),
    )


# The bridge's cell whose search ran out of trials (repetition 2): 1280 B, down.
NOT_CONVERGED = (1280, "down", 2)


def bridge_outcomes(
    repetitions: int = 3,
    frames: Sequence[int] = RFC2544_FRAME_SIZES,
    *,
    variant: str = "default",
    device: Device = Device(),
    iperf_outputs: bool = True,
) -> list[TrialOutcome]:
    """The Br0 test's repetitions: each frame size up and down through the 15,000 pps
    device; one search (NOT_CONVERGED) stops after 8 trials."""
    test, path = forwarding_test(frames=frames), bridge_path()
    outcomes = []
    for k in range(1, repetitions + 1):
        factor = REPETITION_FACTORS[(k - 1) % len(REPETITION_FACTORS)]
        logs = [
            search_log(
                frame,
                direction,
                path,
                device=device,
                factor=factor,
                max_trials=8 if (frame, direction, k) == NOT_CONVERGED else 100,
            )
            for frame in frames
            for direction in ("up", "down")
        ]
        outcomes.append(
            forwarding_outcome(
                test, path, logs, repetition=k, variant=variant, iperf_outputs=iperf_outputs
            )
        )
    return outcomes


NAT_DEVICE = Device(pps=400_000.0, policer_bps=None)
NAT_1518_PPS = 120_000.0


def nat_outcomes(repetitions: int = 2) -> list[TrialOutcome]:
    """The NAT path's repetitions: 64 B generator-limited (the device outruns the
    generator's 180,000 pps), 1518 B at the device's 120,000 pps; no ceiling (unshaped)."""
    test, path = forwarding_test("fwd-nat", frames=(64, 1518), directions=("up",)), nat_path()
    outcomes = []
    for k in range(1, repetitions + 1):
        factor = REPETITION_FACTORS[(k - 1) % len(REPETITION_FACTORS)]
        logs = [
            search_log(64, "up", path, device=NAT_DEVICE, factor=factor, generator=GENERATOR_PPS),
            search_log(
                1518,
                "up",
                path,
                device=Device(pps=NAT_1518_PPS, policer_bps=None),
                factor=factor,
                generator=GENERATOR_PPS,
            ),
        ]
        outcomes.append(forwarding_outcome(test, path, logs, repetition=k))
    return outcomes


def failed_forwarding(repetition: int = 4) -> TrialOutcome:
    test, path = forwarding_test(), bridge_path()
    return TrialOutcome(
        trial=Trial(test, path, repetition=repetition),
        status=TrialStatus.FAILED,
        started_at=START,
        finished_at=START + 1,
        reason="the iperf server on server did not start: address already in use",
    )
