"""An interval series packed into one value comes back equal, whatever it holds."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from migration_samples import MIXED

from wirespeed.model import Interval, ModelError
from wirespeed.store import packed_intervals
from wirespeed.store.packed_intervals import (
    LAYOUT,
    Unpacker,
    pack,
    pack_rows,
    plain_records,
    unpack,
)

INT64 = st.integers(min_value=-(2**63), max_value=2**63 - 1)
TIMES = st.floats(min_value=-1e12, max_value=1e12, allow_nan=False)
RATES = st.floats(allow_nan=False)


@st.composite
def intervals(draw: st.DrawFn) -> Interval:
    start = draw(TIMES)
    return Interval(
        start=start,
        end=start + draw(st.floats(min_value=0, max_value=1e6)),
        bytes=draw(st.integers(min_value=0, max_value=2**63 - 1)),
        bits_per_second=draw(RATES),
        retransmits=draw(st.none() | INT64),
        jitter_ms=draw(st.none() | RATES),
        lost=draw(st.none() | INT64),
        packets=draw(st.none() | INT64),
    )


@given(st.lists(intervals(), max_size=20))
def test_any_series_comes_back_equal(series: list[Interval]) -> None:
    packed = pack(series)
    assert (packed is None) == (not series)
    assert Unpacker()(packed) == tuple(series)


def test_a_series_without_optional_fields_takes_32_bytes_an_interval() -> None:
    series = (Interval(0.0, 1.0, 117_000_000, 936e6), Interval(1.0, 2.0, 116_000_000, 928e6))
    packed = pack(series)
    assert packed is not None
    assert packed[:2] == bytes([LAYOUT, 0]) and len(packed) == 2 + 2 * 32
    assert unpack(packed) == series


def test_fields_some_intervals_lack_are_kept_as_none() -> None:
    packed = pack(MIXED)
    assert packed is not None
    assert packed[1] & packed_intervals.MIXED
    back = unpack(packed)
    assert back == MIXED
    assert [i.retransmits for i in back] == [3, None, 0]
    assert [i.jitter_ms for i in back] == [None, None, 0.0]


def test_what_a_bigint_column_refused_is_refused() -> None:
    with pytest.raises(ValueError, match="cannot be stored"):
        pack([Interval(0.0, 1.0, 2**63, 1.0)])
    with pytest.raises(ValueError, match="cannot be stored"):
        pack_rows([(0.0, 1.0, 1.5, 1.0, None, None, None, None)])


def test_a_value_from_a_newer_layout_is_refused() -> None:
    packed = pack([Interval(0.0, 1.0, 1, 8.0)])
    assert packed is not None
    with pytest.raises(ValueError, match="unknown interval layout 2"):
        unpack(bytes([2]) + packed[1:])


def test_a_stored_interval_that_is_not_one_fails_as_the_model_does() -> None:
    # Rows of an older store are carried over unchecked; loading them checks them.
    for row in (
        (2.0, 1.0, 1, 8.0, None, None, None, None),
        (2.0, 1.0, 1, 8.0, 1, None, None, None),
    ):
        packed = pack_rows([(0.0, 1.0, 1, 8.0, *row[4:]), row])
        assert packed is not None
        with pytest.raises(ModelError, match="ends before it starts"):
            unpack(packed)
        if row[4] is None:  # the layout the reports read without objects
            with pytest.raises(ModelError, match="ends before it starts"):
                plain_records(packed)
    negative = pack_rows([(0.0, 1.0, -1, 8.0, None, None, None, None)])
    assert negative is not None
    with pytest.raises(ModelError, match="bytes must not be negative"):
        plain_records(negative)


def test_the_reports_read_the_common_layout_as_plain_values() -> None:
    series = (Interval(0.0, 1.0, 117_000_000, 936e6), Interval(1.0, 2.0, 1, 8.0))
    packed = pack(series)
    assert packed is not None
    assert plain_records(packed) == [(0.0, 1.0, 117_000_000, 936e6), (1.0, 2.0, 1, 8.0)]
    with_more = pack(MIXED)
    assert with_more is not None
    assert plain_records(with_more) is None


def test_equal_series_load_as_one_shared_tuple() -> None:
    series = (Interval(0.0, 1.0, 1, 8.0),)
    packed = pack(series)
    assert packed is not None
    unpacker = Unpacker()
    first, second = unpacker(packed), unpacker(memoryview(bytes(packed)))
    assert first == series and first is second
    assert unpacker(None) == ()
