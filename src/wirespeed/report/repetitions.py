"""A figure over repetitions: how many there are, their summary and the trials that stand
out. A traffic cell's flow (content.FlowFigure) and a benchmark's cell
(measured.MeasuredCell) say these alike."""

from __future__ import annotations

from functools import cached_property

from wirespeed.analysis.stats import Summary, summarize


class Repetitions:
    """Of a frozen dataclass whose `trials` are the Trial.key of each of its values
    (`repeated`), in the same order."""

    trials: tuple[str, ...]

    @property
    def repeated(self) -> tuple[float, ...]:
        raise NotImplementedError

    @property
    def n(self) -> int:
        return len(self.repeated)

    @cached_property
    def summary(self) -> Summary | None:
        """Median, mean ± sd, interval, CV and outliers; computed once (the bootstrap)."""
        values = self.repeated
        return summarize(values) if values else None

    @property
    def outlier_trials(self) -> tuple[str, ...]:
        summary = self.summary
        if summary is None or not self.trials:
            return ()
        return tuple(self.trials[i] for i in summary.outliers)
