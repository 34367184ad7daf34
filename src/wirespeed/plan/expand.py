"""A plan's trials in the order they run.

Repetitions are the outer loop, so a slow drift (heat, a background job) spreads over
every test instead of landing on the last ones. Within a repetition every variant runs
once, each variant's trials together (its state is applied once per repetition, not per
trial), and within a variant all tests of a path run together (path-major).

Variants alternate their order from one repetition to the next (A B C, C B A, A B C...):
a drift then favours no variant by always running it first, and the variant that ends a
repetition also starts the next one, which saves applying it again.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

from wirespeed.errors import UsageError
from wirespeed.model import ModelError, TestCase, Trial
from wirespeed.plan.plan import Plan
from wirespeed.plan.problems import did_you_mean
from wirespeed.plan.schema import MAX_REPETITIONS, MAX_SECONDS
from wirespeed.plan.tunnel_checks import with_tunnel_options


def expand(
    plan: Plan,
    *,
    duration: float | None = None,
    repetitions: int | None = None,
    only: Sequence[str] | None = None,
) -> list[Trial]:
    """Every test x path x variant x repetition, in run order.

    duration replaces every test's duration (a quick look with --duration 2);
    repetitions replaces the plan's; only keeps the tests with these ids.
    """
    count = plan.repetitions if repetitions is None else repetitions
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_REPETITIONS:
        # The plan's own bound: a billion repetitions would fill the memory before the
        # first trial started.
        raise UsageError(f"repetitions must be a whole number 1..{MAX_REPETITIONS}, got {count!r}")
    wanted = _check_only(plan, only)
    tests = [_with_duration(test, duration) for test in plan.tests if test.id in wanted]
    trials: list[Trial] = []
    for repetition in range(1, count + 1):
        variants = plan.variants if repetition % 2 else tuple(reversed(plan.variants))
        for variant in variants:
            for path in plan.paths:
                runs_here = {test.id for test in plan.tests_for(path)}
                trials.extend(
                    Trial(
                        test=_with_mtu(test, variant.mtu),
                        path=with_tunnel_options(path, variant.tunnel),
                        variant=variant.name,
                        repetition=repetition,
                    )
                    for test in tests
                    if test.id in runs_here and variant.runs(test.id)
                )
    return trials


def _with_mtu(test: TestCase, mtu: int | None) -> TestCase:
    """A variant's MTU is the trial's: the lab is set to it, its ceiling is computed for it,
    and the stored spec says it. (A plan may not set both, so nothing is overridden.)"""
    if mtu is None or test.spec.mtu is not None:
        return test
    return dataclasses.replace(test, spec=dataclasses.replace(test.spec, mtu=mtu))


def _check_only(plan: Plan, only: Sequence[str] | None) -> set[str]:
    known = [test.id for test in plan.tests]
    if only is None:
        return set(known)
    unknown = [test_id for test_id in only if test_id not in known]
    if unknown:
        first = unknown[0]
        raise UsageError(
            f"no test with id {first!r} in {plan.source}{did_you_mean(first, known)}",
            hint=f"test ids are {', '.join(known)}",
        )
    return set(only)


def _with_duration(test: TestCase, duration: float | None) -> TestCase:
    if duration is None:
        return test
    if not isinstance(duration, int | float) or not math.isfinite(duration):
        raise UsageError(f"duration must be a number of seconds, got {duration!r}")
    if duration > MAX_SECONDS:
        raise UsageError(f"duration must be at most {MAX_SECONDS} s (a day), got {duration:g}")
    try:
        spec = dataclasses.replace(test.spec, duration=float(duration))
    except (ModelError, TypeError, ValueError) as error:
        raise UsageError(f"duration: {error}") from None
    if test.tool.searches:
        # A search's full-length trials take the duration: a quick look at its answer.
        from wirespeed.plan.forwarding import ForwardingOptions, with_final_duration

        try:
            search = with_final_duration(test.settings_as(ForwardingOptions), float(duration))
        except ValueError as error:
            raise UsageError(f"duration: {error}") from None
        return dataclasses.replace(test, spec=spec).with_options(*search)
    return dataclasses.replace(test, spec=spec)
