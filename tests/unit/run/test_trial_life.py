"""A trial's life, whatever its kind: its steps' failure becomes a FAILED outcome with the
reason, Ctrl-C passes through, and either way everything it started is stopped, the
watched host's sampler too, before the outcome is made or the interrupt goes on."""

from __future__ import annotations

import os
import signal

import pytest

from support.forwarding_samples import forwarding_test, nat_path
from wirespeed.errors import WirespeedError
from wirespeed.hosts.base import Host
from wirespeed.model import Finding, FindingKind, Result, Tool, Trial, TrialOutcome, TrialStatus
from wirespeed.run.trial_life import TrialFailure, TrialLife, Watching, live_trial
from wirespeed.sampling.model import DeviceInfo, SampleSet


class Recorded:
    """A sampler that says when it was stopped."""

    def __init__(self, said: list[str]) -> None:
        self.said = said

    def wait_for_ticks(self, count: int, timeout: float = 10.0) -> bool:
        return True

    def stop(self, grace: float = 1.0) -> SampleSet:
        self.said.append("sampler stopped")
        return SampleSet("r4s", 1.0, 0.0, None, DeviceInfo(), (), partial=True, reason="stopped")


class Samplers:
    def __init__(self, said: list[str]) -> None:
        self.said = said

    def start(self, host: Host, interval: float = 1.0) -> Recorded:
        self.said.append("sampler started")
        return Recorded(self.said)


class Body:
    """A kind whose steps start something, then end as `ending` says."""

    def __init__(self, said: list[str], ending: BaseException | None) -> None:
        self.said = said
        self.ending = ending

    def run(self, life: TrialLife) -> None:
        life.watch()
        self.said.append("started")
        if self.ending is not None:
            raise self.ending

    def stop(self) -> None:
        self.said.append("stopped")

    def outcome(self, life: TrialLife) -> TrialOutcome:
        self.said.append("outcome")
        result = Result(Tool.FORWARDING, None, ()) if life.reason is None else None
        return life.outcome(result=result, raw=(), findings=[Finding(FindingKind.SUSPECT, "its")])


class Dut:
    name = "r4s"


def _live(ending: BaseException | None) -> tuple[TrialOutcome, list[str]]:
    said: list[str] = []
    trial = Trial(forwarding_test(), nat_path())
    watching = Watching([("dut", Dut())], 1.0, Samplers(said))  # type: ignore[list-item]
    return live_trial(trial, Body(said, ending), watching), said


def test_a_trial_that_runs_to_its_end_is_stopped_then_judged() -> None:
    outcome, said = _live(None)
    assert said == ["sampler started", "started", "stopped", "sampler stopped", "outcome"]
    assert outcome.status is TrialStatus.OK and outcome.reason is None
    assert [m.host for m in outcome.monitors] == ["r4s"]
    assert outcome.findings[0].message == "its"


@pytest.mark.parametrize(
    ("ending", "reason"),
    [
        (TrialFailure("the server did not listen"), "the server did not listen"),
        (WirespeedError("host r4s went away"), "host r4s went away"),
        (TimeoutError("no answer"), "no answer"),
    ],
)
def test_a_failing_trial_is_stopped_and_failed_with_its_reason(
    ending: BaseException, reason: str
) -> None:
    outcome, said = _live(ending)
    assert said == ["sampler started", "started", "stopped", "sampler stopped", "outcome"]
    assert outcome.status is TrialStatus.FAILED and outcome.reason == reason


def test_an_interrupted_trial_is_stopped_and_the_interrupt_passes_through() -> None:
    said: list[str] = []
    trial = Trial(forwarding_test(), nat_path())

    class Interrupted(Body):
        def stop(self) -> None:
            # A second Ctrl-C while stopping waits until everything is stopped.
            os.kill(os.getpid(), signal.SIGINT)
            super().stop()

    watching = Watching([("dut", Dut())], 1.0, Samplers(said))  # type: ignore[list-item]
    with pytest.raises(KeyboardInterrupt):
        live_trial(trial, Interrupted(said, KeyboardInterrupt()), watching)
    assert said == ["sampler started", "started", "stopped", "sampler stopped"]
