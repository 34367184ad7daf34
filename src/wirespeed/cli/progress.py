"""A progress bar with ETA, counted in seconds of planned test time.

Each trial's share is its kind's estimate plus the harness overhead (kinds/catalog.py),
so the ETA is honest for plans that mix 10 s and 120 s tests. Results are printed above
the bar as trials finish.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from wirespeed.model import Flow, Trial, TrialOutcome, TrialStatus
from wirespeed.units import format_rate

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress, TaskID


class RichProgress:
    def __init__(self, console: Console, *, in_lab: bool = True) -> None:
        self.console = console
        self._in_lab = in_lab  # the plan runs in the lab: its searches' trials are shorter
        self._progress: Progress | None = None
        self._task: TaskID | None = None
        self.planned_seconds = 0.0  # the bar's whole: every trial's estimate
        self._done = 0.0  # seconds of finished trials
        self._current = 0.0  # duration of the running trial
        self._count = 0
        self._index = 0
        self._name = ""

    def start(self, trials: Sequence[Trial]) -> None:
        from rich.progress import (
            BarColumn,
            Progress,
            TaskProgressColumn,
            TextColumn,
            TimeRemainingColumn,
        )

        self._count = len(trials)
        from wirespeed.kinds.catalog import trial_seconds

        self.planned_seconds = sum(trial_seconds(t.test, self._in_lab) for t in trials)
        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            TaskProgressColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=self.console,
            transient=True,
        )
        self._progress.start()
        self._task = self._progress.add_task("starting", total=self.planned_seconds)

    def trial_started(self, trial: Trial) -> None:
        self._index += 1
        from wirespeed.kinds.catalog import kind_seconds

        self._current = kind_seconds(trial.test, self._in_lab)
        self._name = f"{trial.path.name} #{trial.test.id} {trial.test.name}"
        self._describe(self._name)

    def step(self, text: str) -> None:
        """Where a long trial is (a search: its frame size, direction and load). Where no
        bar is drawn (stderr a log, not a terminal) each step is a line of its own, as
        iperf prints its intervals: a search's minutes are not silent."""
        self._describe(f"{self._name} · {text}")
        if not self.console.is_interactive:
            from rich.text import Text

            from wirespeed.report.text import terminal_safe

            line = f"  [{self._index}/{self._count}] {self._name} · {text}"
            self.console.print(Text(terminal_safe(line)), highlight=False)

    def _describe(self, text: str) -> None:
        if self._progress is not None and self._task is not None:
            from rich.markup import escape

            from wirespeed.report.text import terminal_safe

            # Progress reads its description as markup: names from the plan are escaped.
            name = terminal_safe(text)
            self._progress.update(
                self._task, description=f"[{self._index}/{self._count}] {escape(name)}"
            )

    def tick(self, elapsed: float) -> None:
        if self._progress is not None and self._task is not None:
            self._progress.update(self._task, completed=self._done + min(elapsed, self._current))

    def trial_finished(self, outcome: TrialOutcome) -> None:
        from wirespeed.kinds.catalog import trial_seconds

        self._done += trial_seconds(outcome.trial.test, self._in_lab)
        if self._progress is not None and self._task is not None:
            self._progress.update(self._task, completed=self._done)
        from rich.text import Text

        from wirespeed.report.text import terminal_safe

        # A Text, never markup: a test named "[/bold]" is a name. Control characters in
        # a name or a device's failure reason are shown as escapes.
        self.console.print(Text(terminal_safe(summary_line(outcome))), highlight=False)

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None


def summary_line(outcome: TrialOutcome) -> str:
    """One line per finished trial: '✓ Br0 #1 TCP, default window  up 941.2 Mbit/s'."""
    trial = outcome.trial
    head = f"{trial.path.name} #{trial.test.id} {trial.test.name}"
    if trial.repetition > 1:
        head += f" (rep {trial.repetition})"
    if outcome.status is TrialStatus.FAILED or outcome.result is None:
        return f"✗ {head}  failed: {outcome.reason}"
    parts = []
    for direction in outcome.result.directions:
        arrow = "up" if direction.flow is Flow.UP else "down"
        parts.append(f"{arrow} {format_rate(direction.goodput_bps)}")
    from wirespeed.kinds.catalog import hooks_of

    summary = hooks_of(trial.test.tool).summary
    if summary is not None:
        parts.append(summary(outcome.result.measurements))
    elif not parts and outcome.result.measurements:
        count = len(outcome.result.measurements)
        parts.append(f"{count} figure{'s' if count != 1 else ''}")
    return f"✓ {head}  " + ", ".join(parts)
