"""The compact JSON of a large report is, byte for byte, json.dumps of its dict."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from report_samples import BR0, DUAL, RAW, WAN, ok, sample_record

from support.samples import measured, run_record, store_runs
from wirespeed.model import (
    DirectionResult,
    Flow,
    Interval,
    RawOutput,
    Side,
    StreamResult,
    TestCase,
    Transfer,
    Trial,
    TrialOutcome,
    TrialStatus,
    UdpStats,
)
from wirespeed.report import build_report, render_json, run_json
from wirespeed.report.json_series import interval_entry, series_json
from wirespeed.report.run_json import report_to_dict
from wirespeed.store import Store
from wirespeed.store.records import RunRecord

# What the writer splices values in after, and what it once did: hostile strings hold it.
SPLICE = '"test":{}"intervals":{}"ceiling":[]"intervals":[]\\":{}'
ODD = (
    Interval(start=0.0, end=0.30000000000000004, bytes=0, bits_per_second=0.0, retransmits=3),
    Interval(start=-0.0, end=1.0, bytes=1, bits_per_second=5e-324, jitter_ms=0.0),
    Interval(
        start=1.0,
        end=2.5,
        bytes=2**63 - 1,
        bits_per_second=1.7976931348623157e308,
        retransmits=0,
        lost=-4,
        packets=2**40,
    ),
)


def _compact(report_record: RunRecord, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    """What render_json writes compact, and json.dumps of the report's dict."""
    monkeypatch.setattr(run_json, "INDENT_UP_TO_TRIALS", 0)
    report = build_report(report_record)
    expected = json.dumps(
        report_to_dict(report), separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )
    return render_json(report), expected


def _hostile_record() -> RunRecord:
    record = sample_record()
    shared = (Interval(start=0.0, end=1.0, bytes=117_000_000, bits_per_second=936e6),)
    stream = StreamResult(id=5, flow=Flow.UP, received=measured(936.0), intervals=shared)
    hostile_test = TestCase(id=SPLICE, name=f"x{SPLICE}\\", tool=DUAL.tool, spec=DUAL.spec)
    outcomes = (
        *record.outcomes,
        # A single stream whose series is also its direction's sum: one shared tuple.
        ok(
            hostile_test,
            WAN,
            DirectionResult(
                flow=Flow.UP,
                received=measured(936.0),
                streams=(stream, dataclasses.replace(stream, id=6, intervals=ODD)),
                intervals=shared,
            ),
            DirectionResult(flow=Flow.DOWN, received=measured(1.0)),
        ),
        # Nothing measured but counters; UDP figures that are unknown; retransmits.
        ok(
            hostile_test,
            BR0,
            DirectionResult(
                flow=Flow.UP,
                retransmits=0,
                udp=UdpStats(jitter_ms=None, lost=0, packets=0, out_of_order=None),
                streams=(
                    StreamResult(
                        id=2**40,
                        flow=Flow.UP,
                        sent=measured(-0.0),
                        retransmits=17,
                        udp=UdpStats(jitter_ms=0.25, lost=-3, packets=9, out_of_order=2),
                    ),
                ),
            ),
            repetition=2,
        ),
        TrialOutcome(
            trial=Trial(test=hostile_test, path=BR0, variant=SPLICE),
            status=TrialStatus.FAILED,
            started_at=1.0,
            finished_at=2.0,
            reason=f'{SPLICE} "intervals": [] \u2028 </script> \x00',
            raw=(
                *RAW,
                RawOutput(host=SPLICE, side=Side.SERVER, argv=(SPLICE,), format="text", text=""),
            ),
        ),
    )
    info = dataclasses.replace(
        record.info,
        title=SPLICE,
        provenance={**record.info.provenance, "intervals": [], SPLICE: {"intervals": []}},
    )
    return dataclasses.replace(record, info=info, outcomes=outcomes)


def test_the_compact_report_is_json_dumps_of_its_dict(monkeypatch: pytest.MonkeyPatch) -> None:
    for record in (sample_record(), _hostile_record()):
        written, expected = _compact(record, monkeypatch)
        assert written == expected


def test_the_compact_report_reads_back_as_the_indented_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    indented = render_json(build_report(_hostile_record()))
    written, _ = _compact(_hostile_record(), monkeypatch)
    assert "\n" in indented and "\n" not in written
    assert json.loads(written) == json.loads(indented)
    (trial,) = [t for t in json.loads(written)["trials"] if t["path"]["name"] == "WAN"][-1:]
    assert trial["flows"][0]["streams"][1]["intervals"][2]["bytes"] == 2**63 - 1
    assert trial["flows"][0]["intervals"] == trial["flows"][0]["streams"][0]["intervals"]


def test_a_figure_that_is_not_a_number_fails_as_json_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    record = sample_record()
    first = record.outcomes[0]
    assert first.result is not None
    up = first.result.directions[0]
    stream = dataclasses.replace(up.streams[0], sent=Transfer(1, 1.0, math.nan))
    direction = dataclasses.replace(up, streams=(stream,))
    result = dataclasses.replace(first.result, directions=(direction,))
    record = dataclasses.replace(record, outcomes=(dataclasses.replace(first, result=result),))
    with pytest.raises(ValueError, match="not JSON compliant"):
        _compact(record, monkeypatch)
    for bad in (math.nan, math.inf, -math.inf):
        series = (Interval(start=0.0, end=1.0, bytes=1, bits_per_second=bad),)
        record = sample_record()
        first = record.outcomes[0]
        assert first.result is not None
        direction = dataclasses.replace(first.result.directions[0], intervals=series)
        result = dataclasses.replace(first.result, directions=(direction,))
        record = dataclasses.replace(
            record, outcomes=(dataclasses.replace(first, result=result), *record.outcomes[1:])
        )
        with pytest.raises(ValueError, match="not JSON compliant"):
            _compact(record, monkeypatch)
        with pytest.raises(ValueError, match="not JSON compliant"):
            series_json(series)


INTS = st.integers(min_value=-(2**70), max_value=2**70)
FLOATS = st.floats(allow_nan=False, allow_infinity=False)


@st.composite
def intervals(draw: st.DrawFn) -> Interval:
    start = draw(st.floats(min_value=-1e300, max_value=1e300))
    return Interval(
        start=start,
        end=start + draw(st.floats(min_value=0, max_value=1e300)),
        bytes=draw(st.integers(min_value=0, max_value=2**70)),
        bits_per_second=draw(FLOATS),
        retransmits=draw(st.none() | INTS),
        jitter_ms=draw(st.none() | FLOATS),
        lost=draw(st.none() | INTS),
        packets=draw(st.none() | INTS),
    )


# No deadline: the suite passes on a busy machine, where one example may take a second.
@settings(deadline=None)
@given(st.lists(intervals(), max_size=5))
def test_any_series_is_written_as_json_writes_it(series: list[Interval]) -> None:
    expected = json.dumps(
        [interval_entry(i) for i in series], separators=(",", ":"), allow_nan=False
    )
    assert series_json(series) == expected


def test_stored_series_with_small_floats_are_written_as_json_writes_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """orjson writes 2.5e-05 as 0.000025 and 1.5e-07 as 1.5e-7: a packed series holding
    such a float is written again from its intervals, as json writes them."""
    small = (
        Interval(start=0.0, end=2.5e-05, bytes=0, bits_per_second=1.5e-07),
        Interval(start=2.5e-05, end=1.0, bytes=1, bits_per_second=8.0),
    )
    plain = (Interval(start=0.0, end=1.0, bytes=117_000_000, bits_per_second=936e6),)
    streams = tuple(
        StreamResult(id=n, flow=Flow.UP, received=measured(1e-10), intervals=series)
        for n, series in enumerate((small, plain))
    )
    direction = DirectionResult(
        flow=Flow.UP, received=measured(936.0), streams=streams, intervals=small
    )
    outcome = ok(DUAL, WAN, direction, DirectionResult(flow=Flow.DOWN, received=measured(1.0)))
    db = tmp_path / "runs.db"
    (run,) = store_runs(db, run_record(outcome))
    with Store.open(str(db), read_only=True) as store:
        packed = store.load_run(run, intervals="packed", outputs=False, commands=True)
        objects = store.load_run(run, intervals=True, outputs=False, commands=True)
    assert packed.packed is not None
    expected = build_report(objects)
    monkeypatch.setattr(run_json, "INDENT_UP_TO_TRIALS", 0)
    written = render_json(build_report(packed))
    assert written == json.dumps(
        report_to_dict(expected), separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )
    assert '"end":2.5e-05,"bytes":0,"bits_per_second":1.5e-07' in written
