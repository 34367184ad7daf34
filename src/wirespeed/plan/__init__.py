"""Plan files: YAML in, a validated Plan out, expanded into the trials of a run.

    plan = load_plan(Path("examples/seed-matrix.yaml"))   # PlanError lists every problem
    for trial in expand(plan, duration=2):
        ...

The format is described in docs/plan-format.md.
"""

from wirespeed.plan.expand import expand
from wirespeed.plan.load import load_plan, parse_plan
from wirespeed.plan.plan import HostPlan, LabPlan, Plan, Variant
from wirespeed.plan.problems import PlanError, Problem

__all__ = [
    "HostPlan",
    "LabPlan",
    "Plan",
    "PlanError",
    "Problem",
    "Variant",
    "expand",
    "load_plan",
    "parse_plan",
]
