"""Bad input the fuzzing of plan files found, each kept as a case of its own: a clear
problem with its position, where there used to be a traceback, a hang or a warning."""

from __future__ import annotations

import time
import warnings
from pathlib import Path

import pytest

from wirespeed.errors import UsageError
from wirespeed.plan import PlanError, expand, load_plan, parse_plan
from wirespeed.plan.load import MAX_PLAN_BYTES

LAB = "lab: {}\npaths: [{name: WAN, topology: endpoint}]\n"


def problems_of(text: str) -> list[str]:
    with pytest.raises(PlanError) as caught:
        parse_plan(text, source="plan.yaml")
    return [str(problem) for problem in caught.value.problems]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # ruamel raised ValueError, KeyError, IndexError, TypeError or AttributeError.
        (
            "title: 2020-13-45\n",
            "1:8: not valid YAML: cannot read '2020-13-45' as a date: month must be "
            "in 1..12 (quote it to make it text)",
        ),
        (
            "a: x\ntitle: 2020-12-09T25:00:00\n",
            "2:8: not valid YAML: cannot read '2020-12-09T25:00:00' as a date: hour "
            "must be in 0..23 (quote it to make it text)",
        ),
        ("repetitions: !!int x\n", "1:14: not valid YAML: cannot read 'x' as an integer"),
        (
            "repetitions: !!int 0x\n",
            "1:14: not valid YAML: cannot read '0x' as an integer",
        ),
        (
            "repetitions: 0x_\n",
            "1:14: not valid YAML: cannot read '0x_' as an integer (quote it to make it text)",
        ),
        ("duration: !!float 1e\n", "1:11: not valid YAML: cannot read '1e' as a number"),
        (
            "x-a: !!bool maybe\n",
            "1:6: not valid YAML: cannot read 'maybe' as true or false",
        ),
        (
            "x-a: !!omap [a: 1, a: 2]\n",
            "1:6: not valid YAML: cannot build an ordered mapping (!!omap) from this list",
        ),
        (
            "? [a, {b: c}]\n: 1\n",
            "1:3: not valid YAML: a list or a mapping cannot be a key",
        ),
        # ruamel raised KeyError (2, 0) or AssertionError, with no position.
        (
            "title: t\n%YAML 2.0\n---\n",
            "2:1: not valid YAML: %YAML 2.0: only YAML 1.1 and 1.2 are known (leave the "
            "directive out for 1.2)",
        ),
        (
            "%YAML 1.3\n---\ntitle: t\n",
            "1:1: not valid YAML: %YAML 1.3: only YAML 1.1 and 1.2 are known (leave the "
            "directive out for 1.2)",
        ),
        # ruamel's ReaderError had no position.
        (
            'title: "a\x7fb"\n',
            "1:10: not valid YAML: the character U+007F cannot appear in a YAML file "
            '(inside double quotes, write it as "\\u007f")',
        ),
        (
            "title: t\n\x1b[2J\n",
            "2:1: not valid YAML: the character U+001B cannot appear in a YAML file "
            '(inside double quotes, write it as "\\u001b")',
        ),
    ],
)
def test_values_yaml_cannot_build_are_problems_with_positions(text: str, message: str) -> None:
    assert problems_of(text)[0] == f"plan.yaml:{message}"


def test_deep_flow_nesting_is_refused_at_once_with_its_position() -> None:
    started = time.monotonic()
    assert problems_of("title: t\ntests: " + "[" * 100_000) == [
        "plan.yaml:2:108: not valid YAML: nested too deeply (more than 100 [ or {)"
    ]
    assert time.monotonic() - started < 1  # ruamel's scanner took 7 s for 5,000 `[`


def test_an_anchor_defined_twice_is_valid_yaml_and_prints_no_python_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plan = parse_plan(LAB + "x-a: &a 1\nx-b: &a 2\ntests: [{id: 1, duration: *a}]\n")
    assert plan.tests[0].spec.duration == 2


def test_a_surrogate_pair_written_as_json_writes_it_is_one_character() -> None:
    plan = parse_plan(LAB + 'title: "R4S \\ud83d\\ude42"\ntests: [{id: 1}]\n')
    assert plan.title == "R4S 🙂"


def test_half_a_surrogate_pair_is_refused() -> None:
    (problem,) = problems_of(LAB + 'title: "\\ud800"\ntests: [{id: 1}]\n')
    assert problem.startswith("plan.yaml:3:8: title: input should be a valid string")


@pytest.mark.parametrize("key", ["name", "id"])
def test_a_name_with_a_newline_at_its_end_is_not_a_name(key: str) -> None:
    # `$` in the pattern matched before a final newline: "WAN\n" passed.
    entry = '{name: "WAN\\n", topology: endpoint}' if key == "name" else '{id: "1\\n"}'
    text = f"lab: {{}}\npaths: [{entry if key == 'name' else '{name: WAN, topology: endpoint}'}]\n"
    text += f"tests: [{entry if key == 'id' else '{id: 1}'}]\n"
    (problem,) = problems_of(text)
    assert f"{key}: 'WAN\\n'" in problem or f"{key}: '1\\n'" in problem
    assert "is not a usable name" in problem


def test_a_key_with_a_control_character_is_quoted_in_the_message() -> None:
    text = LAB + 'tests: [{id: 1}]\nvariants: [{name: v, offloads: {"\\r": on}}]\n'
    (problem,) = problems_of(text)
    assert problem.startswith("plan.yaml:4:33: offloads['\\r']: '\\r' is not an offload feature")
    assert "\r" not in problem


def test_a_file_that_is_not_utf8_says_where(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes("title: ok\ntests: [{id: 1, name: ñé}]\n".encode("latin-1"))
    with pytest.raises(PlanError) as caught:
        load_plan(path)
    assert str(caught.value.problems[0]) == f"{path}:2:23: not UTF-8 text (byte 32 is 0xf1)"


def test_a_huge_file_is_not_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "huge.yaml"
    path.write_bytes(b"#" * (MAX_PLAN_BYTES + 1))
    with pytest.raises(PlanError, match="larger than 1 MiB: not a plan file"):
        load_plan(path)


def test_a_path_that_no_file_can_have_is_a_missing_file() -> None:
    with pytest.raises(PlanError, match=r"^plan\\x00\.yaml: no such plan file$"):
        load_plan(Path("plan\0.yaml"))


def test_a_file_name_that_is_not_utf8_is_shown_escaped(tmp_path: Path) -> None:
    path = Path(f"{tmp_path}/\udcffplan.yaml")  # the byte 0xff, as Python decodes argv
    path.write_text(LAB + "tests: [{id: 1}]\n")
    assert load_plan(path).source == f"{tmp_path}/\\xffplan.yaml"


def test_repetitions_and_durations_from_the_command_line_have_the_plans_bounds() -> None:
    plan = parse_plan(LAB + "tests: [{id: 1}]\n")
    with pytest.raises(UsageError, match=r"repetitions must be a whole number 1\.\.1000"):
        expand(plan, repetitions=10**9)  # used to build a billion trials first
    with pytest.raises(UsageError, match="duration must be at most 86400 s"):
        expand(plan, duration=1e300)
    assert problems_of(LAB + "tests: [{id: 1, duration: 1e300}]\n") == [
        "plan.yaml:3:27: duration: must be at most 86400, got 1e+300"
    ]
