"""What a card's `--tuned` variant changes: `tune suggest`'s plan for the device, decided
from its facts before the run."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from wirespeed.card.plan_text import Tuned
    from wirespeed.card.target import CardBench
    from wirespeed.facts.model import Facts


def tuned_of(bench: CardBench, facts: Facts | None) -> Tuned:
    """What `--tuned` will change, asked of the device's facts before the run; a lab's
    DUT (this machine's CPUs, the lab's veths) is asked when the tuned variant starts."""
    from wirespeed.card.plan_text import Tuned
    from wirespeed.tune.suggest import candidate_cpus, explain, suggest

    if facts is None:
        return Tuned()  # unknown until the variant starts, which says it then
    if bench.device_ssh is None:
        if len(candidate_cpus(facts)) < 2:
            return Tuned(nothing="tune suggest has nothing to change: one CPU only")
        return Tuned()
    plan = suggest(facts)
    if not plan.changes:
        why = [f"already so: {len(plan.kept)} knob(s)"] if plan.kept else []
        why += list(plan.warnings)
        said = f" ({'; '.join(why)})" if why else ""
        return Tuned(nothing=f"tune suggest has nothing to change on {bench.device_ssh}{said}")
    return Tuned(changes=tuple(explain(change) for change in plan.changes))
