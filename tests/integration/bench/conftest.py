"""The foreign bench (tests/support/foreign_bench.py): namespaces standing for real
machines, built by hand with ip, tc and nft, torn down after each test whatever
happened."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from support.foreign_bench import ForeignBench

MakeBench = Callable[..., ForeignBench]


@pytest.fixture
def foreign_bench() -> Iterator[MakeBench]:
    """`foreign_bench(limit_pps=15000, forward=(5800, 5899), pc_wan_port=False)`: a
    bench of its own for the test, removed after it."""
    benches: list[ForeignBench] = []

    def make(**options: object) -> ForeignBench:
        bench = ForeignBench.build(**options)  # type: ignore[arg-type]
        benches.append(bench)
        return bench

    try:
        yield make
    finally:
        for bench in benches:
            bench.down()
