"""When a chunk's irtt counts as having opened its session: only on a status that was
true HELD_AFTER past its launch. Over SSH a status is as old as the last poll: an irtt
that failed to open (path down, 0.2 s) still looks running until the next poll, and a
chunk taken as held then sent nothing for its whole length (a 12 s freeze of a real
router's WAN read as 15.8 s)."""

from __future__ import annotations

from typing import cast

from wirespeed.hosts.base import Process
from wirespeed.soak.stream import HELD_AFTER, Started


class _Seen:
    """A program whose status is known as of a given moment, as over SSH."""

    def __init__(self, status: int | None, as_of: float) -> None:
        self.status = status
        self.as_of = as_of

    def poll(self) -> int | None:
        return self.status

    def status_as_of(self) -> float:
        return self.as_of


def _started(status: int | None, as_of: float, launched_at: float = 100.0) -> Started:
    process = cast(Process, _Seen(status, as_of))
    return Started(process, started_at=100.0, seconds=10.0, launched_at=launched_at)


def test_a_status_seen_before_held_after_proves_nothing_however_late_it_is_asked() -> None:
    assert _started(None, as_of=100.0 + HELD_AFTER / 2).held() is None


def test_running_as_of_held_after_past_the_launch_is_held() -> None:
    assert _started(None, as_of=100.0 + HELD_AFTER).held() is True


def test_a_slow_launch_counts_from_when_the_program_ran() -> None:
    # Launched 0.4 s after it was asked for (an SSH round trip): a status seen
    # HELD_AFTER after the asking is not HELD_AFTER after the launch.
    late = _started(None, as_of=100.0 + HELD_AFTER, launched_at=100.4)
    assert late.held() is None
    assert _started(None, as_of=100.4 + HELD_AFTER, launched_at=100.4).held() is True


def test_an_ended_program_is_judged_by_its_status() -> None:
    assert _started(0, as_of=0.0).held() is True
    assert _started(1, as_of=0.0).held() is False
