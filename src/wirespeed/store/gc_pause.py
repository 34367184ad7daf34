"""The cyclic garbage collector kept out of loading a run and making its reports.

A run of 10,000 trials loads as hundreds of thousands of small objects, and its reports
make millions more, none of them in a reference cycle: reference counting frees them
all. The collector would rescan them again and again while they pile up (building the
report of such a run took 1.3 s with it, 0.8 s without), and once more, all of them, at
its first pass after it is enabled again. So it is off while such work runs, and what the
work leaves behind (the run, the report) is moved at once to the oldest generation, which
the collector scans only when that generation has grown by a quarter since its last
scan: not again, as a rule, before the process ends. Cyclic garbage among them is still
collected then.
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


@contextmanager
def collector_paused() -> Iterator[None]:
    """The collector off inside, and on again after (if it was on), with the objects
    made inside counted as old ones."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        # freeze() moves every tracked object into the permanent generation and resets
        # the young generations' counts; unfreeze() moves them all into the oldest one.
        # Together: the young objects become old ones without being scanned.
        gc.freeze()
        gc.unfreeze()
        gc.enable()


def gc_paused(function: Callable[P, R]) -> Callable[P, R]:
    """`function` run under collector_paused()."""

    @functools.wraps(function)
    def paused(*args: P.args, **kwargs: P.kwargs) -> R:
        with collector_paused():
            return function(*args, **kwargs)

    return paused
