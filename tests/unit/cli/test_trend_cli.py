"""`wirespeed trend`: labelled runs from a store, its tables, JSON and gate; `run --label`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.cli import run_cli
from support.samples import store_runs
from support.trend_samples import labelled
from wirespeed.cli.labels import parse_labels
from wirespeed.errors import UsageError


@pytest.fixture
def store(tmp_path: Path) -> str:
    db = str(tmp_path / "trend.db")
    store_runs(
        db,
        labelled(1, "23.05.0", 1.0),
        labelled(2, "23.05.0", 1.004),
        labelled(3, "23.05.2", 1.002),
        labelled(4, "23.05.3", 0.9),
    )
    return db


def test_the_gate_exits_5_on_the_newest_firmware_and_names_it(store: str) -> None:
    status, out, err = run_cli(
        "trend", "--by", "firmware", "--fail-on", "regression", "--db", store
    )
    assert status == 5, err
    assert "2 regressions" in err and "23.05.3 against 23.05.2" in err
    assert "regression!" in out and "no change" in out


def test_without_the_gate_a_regression_exits_0(store: str) -> None:
    status, _, _ = run_cli("trend", "--by", "firmware", "--db", store)
    assert status == 0


def test_json_says_each_verdict(store: str) -> None:
    status, out, _ = run_cli("trend", "--by", "firmware", "--format", "json", "--db", store)
    assert status == 0
    document = json.loads(out)
    assert document["format"] == "wirespeed-trend"
    assert document["regressions"] == 2
    series = document["series"][0]
    assert [g["name"] for g in series["groups"]] == ["23.05.0", "23.05.2", "23.05.3"]
    assert [s["verdict"] for s in series["steps"]] == ["no change", "regression"]
    assert series["newest"]["after"] == "23.05.3"
    assert series["steps"][1]["interval"]["high"] < 1
    # Four runs are too few for a change point (3 runs a side): the JSON says none was
    # looked for, not that none was found.
    assert series["change_points_searched"] is False
    assert series["change_points"] == []


def test_unlabelled_history_gates_on_its_newest_change_point(tmp_path: Path) -> None:
    db = str(tmp_path / "nightly.db")
    levels = (1.0, 1.004, 0.997, 1.002, 0.9, 0.903, 0.898, 0.901)
    store_runs(db, *(labelled(i + 1, None, level) for i, level in enumerate(levels)))
    status, out, err = run_cli("trend", "--fail-on", "regression", "--format", "json", "--db", db)
    assert status == 5, err
    series = json.loads(out)["series"][0]
    assert series["change_points_searched"] is True
    assert [(c["run_id"], c["verdict"]) for c in series["change_points"]] == [(5, "regression")]
    assert series["newest"]["after"] == "from run 5"
    assert series["newest"]["method"] == "welch t-test"
    assert series["newest"]["p_value"] < 0.05


def test_a_baseline_judges_the_newest_against_it(store: str) -> None:
    status, out, _ = run_cli(
        "trend", "--by", "firmware", "--baseline", "23.05.0", "--format", "json", "--db", store
    )
    assert status == 0
    series = json.loads(out)["series"][0]
    assert series["against_baseline"]["before"] == "23.05.0"
    assert series["against_baseline"]["verdict"] == "regression"


def test_markdown_has_a_table_per_measurement(store: str) -> None:
    status, out, _ = run_cli("trend", "--by", "firmware", "--format", "markdown", "--db", store)
    assert status == 0
    assert out.count("| Group | Runs |") == 2
    assert "| 23.05.3 | 4 |" in out


@pytest.mark.parametrize("width", [40, 200])
def test_terminal_at_both_widths(store: str, width: int) -> None:
    import io

    from rich.console import Console

    from wirespeed.analysis.trend import trend
    from wirespeed.report.trend_render import render_trend_terminal
    from wirespeed.store import Store

    with Store.open(store, read_only=True) as opened:
        records = [opened.load_run(r.id) for r in opened.list_runs()]
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, color_system=None)
    render_trend_terminal(trend(records, by="firmware"), console)
    out = buffer.getvalue()
    assert max(len(line) for line in out.splitlines()) <= width
    assert "\N{HORIZONTAL ELLIPSIS}" not in out  # nothing cut off: folded at 40
    assert out.count("regression!") == 2
    flat = "".join(out.split())
    assert "\N{MINUS SIGN}10.2%" in flat


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--by", "build"], "no run has a label 'build'"),
        (["--by", "firmware", "--path", "WAN"], "no two runs measured path 'WAN'"),
        (["--by", "firmware", "--baseline", "9.9"], "--baseline 9.9"),
        (["--by", "firmware", "--min-effect", "lots"], "--min-effect 'lots'"),
        (["--by", "firmware", "--alpha", "0.5"], "--alpha must be"),
        (["--baseline", "old"], "judges the newest group of --by"),
        (["--baseline", "1"], "judges the newest group of --by"),
    ],
)
def test_bad_questions_exit_2_with_a_hint(store: str, argv: list[str], said: str) -> None:
    status, out, err = run_cli("trend", *argv, "--db", store)
    assert status == 2
    assert said in err
    assert "Traceback" not in err and out == ""


def test_one_run_is_no_trend(tmp_path: Path) -> None:
    db = str(tmp_path / "one.db")
    store_runs(db, labelled(1, "a", 1.0))
    status, _, err = run_cli("trend", "--by", "firmware", "--db", db)
    assert status == 2 and "two runs or more" in err


def test_labels_parse_and_refuse_what_is_not_key_value() -> None:
    assert parse_labels(["firmware=23.05.3", "build = r1"]) == {
        "firmware": "23.05.3",
        "build": "r1",
    }
    for bad in ("firmware", "=x", "firmware=", "1x=2", "a b=c"):
        with pytest.raises(UsageError):
            parse_labels([bad])
    with pytest.raises(UsageError, match="twice"):
        parse_labels(["a=1", "a=2"])


def test_run_refuses_a_bad_label_before_anything_runs(tmp_path: Path) -> None:
    status, _, err = run_cli(
        "run", "-c", "lab", "--label", "firmware", "--db", str(tmp_path / "x.db")
    )
    assert status == 2 and "KEY=VALUE" in err


def test_a_resumed_run_keeps_the_labels_it_began_with(tmp_path: Path) -> None:
    status, _, err = run_cli(
        "run", "--resume", "1", "--label", "a=b", "--db", str(tmp_path / "x.db")
    )
    assert status == 2 and "--label" in err


def test_a_run_report_says_its_labels_as_they_were_given(store: str) -> None:
    status, out, _ = run_cli("report", "4", "--format", "markdown", "--db", store)
    assert status == 0
    assert "labels: firmware=23.05.3" in out


def test_a_hostile_label_is_text_in_every_format(tmp_path: Path) -> None:
    from wirespeed.analysis.trend import trend
    from wirespeed.report.trend_render import render_trend_html, render_trend_markdown

    hostile = "<img src=x onerror=alert(1)>"
    runs = [labelled(1, hostile, 1.0), labelled(2, "[x](http://e.test)", 0.9)]
    found = trend(runs, by="firmware")
    page = render_trend_html(found)
    assert "<img" not in page and "&lt;img src=x" in page
    markdown = render_trend_markdown(found)
    assert "<img" not in markdown and "&lt;img src=x" in markdown
    assert "[x](" not in markdown and "\\[x\\](http" in markdown  # no link: text
