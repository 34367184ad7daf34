"""Loading a run and making its reports keep the cyclic collector out, and leave it as
they found it."""

from __future__ import annotations

import gc

from wirespeed.store.gc_pause import collector_paused, gc_paused


def test_the_collector_is_off_inside_and_on_again_after() -> None:
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
        made: list[list[int]] = [[] for _ in range(10_000)]
    assert gc.isenabled()
    # What was made inside counts as old: no young collection is due because of it.
    assert gc.get_count()[0] < 10_000
    assert made


def test_a_collector_that_was_off_stays_off() -> None:
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_cycles_made_inside_are_still_collected_later() -> None:
    class Node:
        other: object = None

    @gc_paused
    def make_cycle() -> None:
        a, b = Node(), Node()
        a.other, b.other = b, a

    before = sum(1 for o in gc.get_objects() if isinstance(o, Node))
    make_cycle()
    gc.collect()
    assert sum(1 for o in gc.get_objects() if isinstance(o, Node)) == before
