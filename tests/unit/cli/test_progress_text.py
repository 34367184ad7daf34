"""The progress bar and the line per finished trial print names from the plan and reasons
from devices as text: never as rich markup, never with their control characters."""

from __future__ import annotations

import io

from rich.console import Console

from wirespeed.cli.progress import RichProgress
from wirespeed.model import (
    PathSpec,
    TestCase,
    TestSpec,
    Tool,
    Topology,
    Trial,
    TrialOutcome,
    TrialStatus,
)

NAME = "[/bold] [red]x\x1b]0;pwned\x07"


def test_a_name_that_looks_like_markup_and_a_hostile_reason_print_as_text() -> None:
    out = io.StringIO()
    console = Console(file=out, width=200, color_system=None, force_terminal=True)
    trial = Trial(
        test=TestCase(id="1", name=NAME, tool=Tool.IPERF3, spec=TestSpec(duration=1)),
        path=PathSpec(name="p[b]", topology=Topology.ENDPOINT, client="a", server="b"),
    )
    failed = TrialOutcome(
        trial=trial,
        status=TrialStatus.FAILED,
        started_at=0.0,
        finished_at=1.0,
        reason="device said \x1b[2J\u202egnp.exe",
    )
    progress = RichProgress(console)
    progress.start([trial])
    progress.trial_started(trial)  # rich used to read the name as markup: MarkupError
    progress.trial_finished(failed)
    progress.close()
    text = out.getvalue()
    assert "[/bold] [red]x\\x1b]0;pwned\\x07" in text
    assert "device said \\x1b[2J\\u202egnp.exe" in text
    assert "\u202e" not in text and "pwned\x07" not in text and "\x1b[2J" not in text


def test_in_a_log_a_searchs_steps_are_lines_and_its_result_is_its_figures() -> None:
    from support.forwarding_samples import bridge_outcomes

    (outcome,) = bridge_outcomes(1, frames=(64, 1518), iperf_outputs=False)
    for interactive in (False, True):
        out = io.StringIO()
        console = Console(
            file=out,
            width=300,
            color_system=None,
            force_terminal=False,
            force_interactive=interactive,
        )
        progress = RichProgress(console)
        progress.start([outcome.trial])
        progress.trial_started(outcome.trial)
        progress.step("64 B up: trial 1: 1,488,095 pps for 1 s: 1,473,095 lost")
        progress.trial_finished(outcome)
        progress.close()
        text = out.getvalue()
        step = "  [1/1] Br0 #fwd forwarding rate · 64 B up: trial 1: 1,488,095 pps for 1 s"
        # A terminal shows the step in its bar, redrawn in place; a log gets a line.
        assert (step in text) is not interactive, text
        finished = next(line for line in text.splitlines() if line.startswith("✓"))
        assert finished.startswith("✓ Br0 #fwd forwarding rate  NDR 64 B up "), finished
        assert "1518 B down" in finished and finished.endswith(" pps")
