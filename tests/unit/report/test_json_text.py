"""JSON written by orjson is byte for byte what json.dumps(ensure_ascii=False,
allow_nan=False) writes, indented or compact; reports and comparisons are written by it."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from report_samples import sample_record

from wirespeed.analysis.compare_within import compare_paths
from wirespeed.report import build_report, json_text, render_json, run_json
from wirespeed.report.compare_many_render import many_to_dict, render_many_json

# The floats orjson writes otherwise than repr: 1e-9 <= |x| < 1e-4.
SMALL = [1e-5, -1e-5, 2.5e-05, 9.999999999999999e-05, 1.5e-7, -1e-9, 1e-6, 4.2e-8]
# Around them, and what both write alike.
ALIKE = [1e-4, -1e-4, 9.99e-10, 1e-10, 5e-324, 1e16, 1e-300, 0.0, -0.0, 0.1, 1e22, 123.0]
FLOATS = st.floats(allow_nan=False, allow_infinity=False) | st.sampled_from(SMALL + ALIKE)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | FLOATS
    | st.text()
    # Text that looks like orjson's small floats, or like what it splices.
    | st.sampled_from(["0.00001", "1e-7", 'x":{}', "\\", "\u2028 </script> \x00 \x7f é"])
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)


def _json(value: Any, *, indent: bool) -> str:
    if indent:
        return json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False)
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


# No deadline: the suite passes on a busy machine, where one example may take a second.
@settings(deadline=None)
@given(VALUES)
def test_any_value_is_written_as_json_writes_it(value: Any) -> None:
    assert json_text.compact(value) == _json(value, indent=False)
    assert json_text.indented(value) == _json(value, indent=True)


def test_small_floats_are_written_as_repr_writes_them() -> None:
    value = {"small": SMALL, "alike": ALIKE, "nested": [{"x": (1e-5,)}], "0.00001": "1e-7"}
    assert json_text.compact(value) == _json(value, indent=False)
    assert json_text.indented(value) == _json(value, indent=True)
    assert '"small":[1e-05,-1e-05,2.5e-05,9.999999999999999e-05,1.5e-07' in json_text.compact(value)


def test_the_value_given_is_not_changed() -> None:
    inner = {"x": 1e-5}
    value = {"a": [inner], "b": (2e-6, "s")}
    json_text.compact(value)
    assert value == {"a": [{"x": 1e-5}], "b": (2e-6, "s")}
    assert type(value["a"][0]["x"]) is float  # type: ignore[index]


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_a_figure_that_is_not_a_number_is_refused_as_json_refuses_it(bad: float) -> None:
    for value in (bad, [1.0, {"a": (bad,)}], {"a": 1e-5, "b": [bad]}):
        for write in (json_text.compact, json_text.indented):
            with pytest.raises(ValueError, match="Out of range float values are not JSON"):
                write(value)


def test_reports_and_comparisons_are_written_by_orjson(monkeypatch: pytest.MonkeyPatch) -> None:
    """json's encoder is not used (it is several times slower), yet the text is its."""
    record = sample_record()
    report = build_report(record)
    comparison = compare_paths(record, "WAN", "Br0")
    expected = {
        "indented": _json(run_json.report_to_dict(report), indent=True),
        "compact": _json(run_json.report_to_dict(report), indent=False),
        "compare": _json(many_to_dict(comparison), indent=True) + "\n",
    }

    def refused(*args: object, **kwargs: object) -> str:
        raise AssertionError("json wrote the text")

    monkeypatch.setattr(json.JSONEncoder, "encode", refused)
    monkeypatch.setattr(json, "dumps", refused)
    assert render_json(report) == expected["indented"]
    assert render_many_json(comparison) == expected["compare"]
    monkeypatch.setattr(run_json, "INDENT_UP_TO_TRIALS", 0)
    assert render_json(report) == expected["compact"]
