"""Run a plan with the Runner, writing the lab's knobs to a JSON-lines file: once when
the labs are up (before any variant), at each trial's start and once more at the end
(after the variant was restored, before the labs go). Exits 143 on SIGTERM, like
wirespeed.

    python run_with_variants.py PLAN DB LAB_PREFIX KNOBS_FILE
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path

from knobs import knobs
from rich.console import Console

from wirespeed.cli.exit import Terminated, raise_on_sigterm
from wirespeed.kinds import wire_hooks
from wirespeed.model import Trial, TrialOutcome
from wirespeed.plan import expand, load_plan
from wirespeed.report import build_report
from wirespeed.report.run_document import run_document
from wirespeed.report.terminal import render_document
from wirespeed.run.runner import Runner
from wirespeed.store import Store

wire_hooks()  # the plan and the runner find each kind's hooks, as the command line does


class KnobProgress:
    def __init__(self, prefix: str, out: Path) -> None:
        self.prefix = prefix
        self.out = out

    def _write(self, when: str, trial: Trial | None = None) -> None:
        line = {"when": when, "trial": trial.key if trial else None, "knobs": knobs(self.prefix)}
        with self.out.open("a") as file:
            file.write(json.dumps(line) + "\n")

    def start(self, trials: Sequence[Trial]) -> None:
        self._write("before")

    def trial_started(self, trial: Trial) -> None:
        self._write("during", trial)

    def tick(self, elapsed: float) -> None:
        pass

    def step(self, text: str) -> None:
        pass

    def trial_finished(self, outcome: TrialOutcome) -> None:
        pass

    def close(self) -> None:
        self._write("after")


def main(plan_file: str, db: str, prefix: str, out: str) -> int:
    raise_on_sigterm()
    plan = load_plan(Path(plan_file))
    store = Store.open(db)
    try:
        runner = Runner(plan, store, KnobProgress(prefix, Path(out)), lab_prefix=prefix)
        outcome = runner.run(expand(plan))
        render_document(
            run_document(build_report(store.load_run(outcome.run_id))), Console(width=160)
        )
    except Terminated:
        return 143
    finally:
        store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:5]))
