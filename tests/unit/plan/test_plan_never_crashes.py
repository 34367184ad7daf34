"""Whatever the file holds, loading it gives a Plan or a PlanError: never a traceback."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from wirespeed.plan import Plan, PlanError, parse_plan
from wirespeed.plan.schema import SETTING_KEYS, TOP_LEVEL_KEYS

KEYS = [
    *TOP_LEVEL_KEYS,
    *SETTING_KEYS,
    "id",
    "name",
    "paths",
    "topology",
    "client",
    "server",
    "dut",
    "link",
    "address",
    "ssh",
    "durtion",
]
WORDS = [
    "gbe",
    "fe",
    "udp",
    "tcp",
    "dual",
    "bidir",
    "nat",
    "bridge",
    "endpoint",
    "iperf2",
    "iperf3",
    "64K",
    "1000M",
    "root@10.0.0.1",
    "",
    "-",
    "[",
    "{",
    ":",
    "*a",
    "&a",
    "!x",
]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(),
    st.sampled_from(WORDS),
    st.text(max_size=12),
)
values: st.SearchStrategy[Any] = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.one_of(st.sampled_from(KEYS), st.text(max_size=6)), inner, max_size=5),
    ),
    max_leaves=25,
)


def load(text: str) -> None:
    try:
        result = parse_plan(text, source="fuzz.yaml")
    except PlanError as error:
        assert error.problems
        for problem in error.problems:
            assert problem.line is None or problem.line >= 1
            assert problem.column is None or problem.column >= 1
            assert str(problem).startswith("fuzz.yaml")
    else:
        assert isinstance(result, Plan)


# Values ruamel itself cannot build (it raised ValueError, TypeError...): the loader
# reports them as problems with a position.
UNBUILDABLE = ["2020-13-45", "!!int ", "!!float ", "!!omap ", "0x_", "? [a]\n", "\x7f", "\x1b"]
TOKENS = [
    *"abc:-{}[],#&*!|>'\"\n \t1.%@?",
    "\n  ",
    "\n    - ",
    *WORDS,
    *UNBUILDABLE,
    *(f"{k}: " for k in KEYS),
]
SEED = (Path(__file__).resolve().parents[3] / "examples" / "seed-matrix.yaml").read_text()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(TOKENS), max_size=60).map("".join))
def test_yaml_ish_text_never_crashes_the_loader(text: str) -> None:
    load(text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(st.integers(0, len(SEED)), st.integers(0, 8), st.sampled_from(TOKENS)),
        min_size=1,
        max_size=4,
    )
)
def test_a_damaged_example_never_crashes_the_loader(edits: list[tuple[int, int, str]]) -> None:
    text = SEED
    for at, cut, token in edits:
        text = text[:at] + token + text[at + cut :]
    load(text)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from(KEYS), values, max_size=8))
def test_random_mappings_never_crash_the_loader(data: dict[str, Any]) -> None:
    load(dump(data))


@settings(max_examples=100, deadline=None)
@given(
    st.dictionaries(st.sampled_from(list(SETTING_KEYS)), values, max_size=4),
    st.sampled_from(["endpoint", "bridge", "router", "nat", "mesh"]),
)
def test_random_tests_on_a_lab_never_crash_the_loader(test: dict[str, Any], topology: str) -> None:
    plan = {
        "lab": {"link": "gbe"},
        "paths": [{"name": "P", "topology": topology}],
        "tests": [{"id": 1, **test}],
    }
    load(dump(plan))


def dump(data: Any) -> str:
    from io import StringIO

    stream = StringIO()
    YAML(typ="safe", pure=True).dump(data, stream)
    return stream.getvalue()
