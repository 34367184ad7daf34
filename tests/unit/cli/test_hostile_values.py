"""Hostile values in a plan: refused where they cannot be valid, carried as text where
free text belongs, and never interpreted by anything.

Addresses, SSH targets and names end up on command lines (iperf's `-c ADDRESS`, and on
an SSH device a shell), so `;`, `$(...)`, backticks, quotes, spaces, newlines and a
leading `-` are refused there, with the file, line and key. Titles and test names are
free text: they reach every report unchanged, escaped as each format needs. No test here
starts a process: every way to start one fails the test.
"""

from __future__ import annotations

import csv
import html
import io
import json
import os
import subprocess
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.cli import run_cli_to_preflight
from wirespeed.model import (
    DirectionResult,
    Flow,
    Interval,
    Result,
    StreamResult,
    Transfer,
    TrialOutcome,
    TrialStatus,
)
from wirespeed.plan import expand, load_plan
from wirespeed.store import RunStatus, Store
from wirespeed.store.records import RunInfo


class StartedAProcess(AssertionError):
    pass


@pytest.fixture(autouse=True)
def no_process(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every way Python starts a program fails the test, and is recorded should something
    catch the failure."""
    attempts: list[str] = []

    def refuse(name: str) -> object:
        def start(*args: object, **kwargs: object) -> None:
            attempts.append(f"{name}{args!r}")
            raise StartedAProcess(f"{name} called with {args!r}")

        return start

    monkeypatch.setattr(subprocess, "Popen", refuse("subprocess.Popen"))
    for name in ("system", "popen", "fork", "forkpty", "posix_spawn", "posix_spawnp"):
        monkeypatch.setattr(os, name, refuse(f"os.{name}"))
    for name in ("execv", "execve", "execvp", "execvpe", "execl", "execlp", "spawnv", "spawnvp"):
        monkeypatch.setattr(os, name, refuse(f"os.{name}"))
    yield attempts
    assert attempts == []


# -- refused: values that reach command lines -----------------------------------------

SHELL_METACHARACTERS = [
    "10.0.0.1; reboot",
    "10.0.0.1&&reboot",
    "10.0.0.1|reboot",
    "$(reboot)",
    "${IFS}",
    "`reboot`",
    "'10.0.0.1'",
    '"10.0.0.1"',
    "10.0.0.1 reboot",
    "10.0.0.1\nreboot",
    "10.0.0.1\n",
    " 10.0.0.1",
    "10.0.0.1\t",
    "-oProxyCommand=reboot",
    "--help",
    "10.0.0.1>/etc/passwd",
    "10.0.0.1#",
    "*",
    "~root",
    "\\x",
    "ro\u00fcter",  # not ASCII: iperf resolves names without IDNA
    "",
]

PLAN = """\
hosts:
  laptop: {{address: 192.168.2.128}}
  r4s:
    address: {address}
    ssh: {ssh}
paths:
  - name: {path}
    topology: endpoint
    client: laptop
    server: r4s
tests:
  - id: {test}
    name: TCP
"""
LINES = {"address": 4, "ssh": 5, "path": 7, "test": 12}
GOOD = {"address": "192.168.0.62", "ssh": "root@192.168.2.1:22", "path": "WAN", "test": "1"}


def plan_with(tmp_path: Path, **values: str) -> Path:
    # JSON's escapes are YAML's: the value arrives exactly as given, newlines and all.
    fields = {key: json.dumps(values.get(key, good)) for key, good in GOOD.items()}
    path = tmp_path / "plan.yaml"
    path.write_text(PLAN.format(**fields), encoding="utf-8")
    return path


def assert_refused(path: Path, key: str, line: int, why: str) -> None:
    for command in ("check", "run"):
        status, out, err = run_cli_to_preflight(command, str(path))
        assert status == 2, (command, out, err)
        assert "Traceback" not in err
        assert f"{path}:{line}:" in err, err
        assert key in err and why in err, err


def test_the_plan_with_good_values_is_valid(tmp_path: Path) -> None:
    path = plan_with(tmp_path)
    assert run_cli_to_preflight("check", str(path))[0] == 0
    assert run_cli_to_preflight("run", str(path))[0] is None  # got as far as preflight


@pytest.mark.parametrize("value", SHELL_METACHARACTERS)
def test_an_address_that_could_be_more_than_an_address_is_refused(
    tmp_path: Path, value: str
) -> None:
    path = plan_with(tmp_path, address=value)
    why = "at least 1 character" if value == "" else "is not an address"
    assert_refused(path, "address", LINES["address"], why)


@pytest.mark.parametrize(
    "value",
    [
        *(f"root@{bad}" for bad in SHELL_METACHARACTERS if bad),
        *(f"{bad}@r4s" for bad in SHELL_METACHARACTERS if bad),
        "root@r4s:22 -oProxyCommand=reboot",
        "root@r4s:22;reboot",
        "root@r4s:$(id)",
        "root@[::1;reboot]:22",
        "root@[::1]$(id):22",
        "root@[fe80::1%eth0;reboot]:22",
        "root@[10.0.0.1]:22",  # brackets are for IPv6 only
        "root@@r4s",
        "root@r4s:22:22",
    ],
)
def test_an_ssh_target_that_could_be_more_than_a_login_is_refused(
    tmp_path: Path, value: str
) -> None:
    path = plan_with(tmp_path, ssh=value)
    assert_refused(path, "ssh", LINES["ssh"], "is not an SSH target")


@pytest.mark.parametrize(
    "value",
    ["192.168.0.62", "::1", "fe80::1%eth0", "r4s.lan", "r4s.lan.", "my-router", "host_1", "10"],
)
def test_addresses_and_host_names_as_written_are_accepted(tmp_path: Path, value: str) -> None:
    assert run_cli_to_preflight("check", str(plan_with(tmp_path, address=value)))[0] == 0


@pytest.mark.parametrize(
    "value",
    ["root@192.168.2.1", "r4s", "me@r4s.lan:2222", "root@[fe80::1]:22", "root@[fe80::1%eth0]"],
)
def test_ssh_targets_as_written_are_accepted(tmp_path: Path, value: str) -> None:
    assert run_cli_to_preflight("check", str(plan_with(tmp_path, ssh=value)))[0] == 0


# Ids and names become parts of result keys, file names and report columns.
NAME_ATTACKS = [
    "WAN; reboot",
    "$(reboot)",
    "`reboot`",
    "W'AN",
    'W"AN',
    "W AN",
    "WAN\n",
    "WAN\nreboot",
    "-WAN",
    "--help",
    ".hidden",
    "../etc",
    "a/b",
    "W|AN",
    "eth0:1",
    "wän",
]


@pytest.mark.parametrize("key", ["path", "test"])
@pytest.mark.parametrize("value", NAME_ATTACKS)
def test_names_that_are_more_than_names_are_refused(tmp_path: Path, key: str, value: str) -> None:
    path = plan_with(tmp_path, **{key: value})
    assert_refused(path, "name" if key == "path" else "id", LINES[key], "is not a usable name")


@pytest.mark.parametrize("value", NAME_ATTACKS)
def test_host_names_and_references_that_are_more_than_names_are_refused(
    tmp_path: Path, value: str
) -> None:
    text = PLAN.format(**{k: json.dumps(v) for k, v in GOOD.items()})
    path = tmp_path / "plan.yaml"
    path.write_text(text.replace("  laptop:", f"  {json.dumps(value)}:"), encoding="utf-8")
    assert_refused(path, "host name", 2, "is not a usable name")
    path.write_text(text.replace("client: laptop", f"client: {json.dumps(value)}"))
    assert_refused(path, "client", 9, "is not a usable name")


@pytest.mark.parametrize(
    ("entry", "why"),
    [
        ('offloads: {"gro; reboot": off}', "is not an offload feature"),
        ('offloads: {"-K": off}', "is not an offload feature"),
        ('offloads: {"$(reboot)": off}', "is not an offload feature"),
        ('offloads: {gro: "off; reboot"}', "expected on or off"),
        ('rps: "3f; reboot"', "is not spread, off or a hex CPU mask"),
        ('xps: "$(reboot)"', "is not spread, off or a hex CPU mask"),
    ],
)
def test_variant_values_that_reach_sysfs_and_ethtool_are_checked(
    tmp_path: Path, entry: str, why: str
) -> None:
    path = tmp_path / "plan.yaml"
    path.write_text(
        textwrap.dedent(
            f"""\
            lab: {{link: gbe}}
            paths: [{{name: WAN, topology: endpoint}}]
            tests: [{{id: 1}}]
            variants:
              - name: default
              - name: tuned
                {entry}
            """
        )
    )
    assert_refused(path, "", 7, why)


@pytest.mark.parametrize(
    "value",
    ["a\nb", "tab\there", "\x1b[2Jwiped", "bell\x07", "nul\x00", "cr\rlf", "\u2028", "del\x7f"],
)
@pytest.mark.parametrize("key", ["title", "name"])
def test_free_text_is_one_line_without_control_characters(
    tmp_path: Path, key: str, value: str
) -> None:
    path = tmp_path / "plan.yaml"
    title = json.dumps(value if key == "title" else "t")
    name = json.dumps(value if key == "name" else "n")
    path.write_text(
        f"title: {title}\nlab: {{}}\npaths: [{{name: WAN, topology: endpoint}}]\n"
        f"tests:\n  - id: 1\n    name: {name}\n"
    )
    status, _, err = run_cli_to_preflight("check", str(path))
    assert status == 2
    assert f"{path}:{1 if key == 'title' else 6}:" in err
    assert "one line of printable text" in err
    assert "\x1b" not in err and "\x07" not in err and "\x00" not in err  # quoted, escaped


# -- carried: free text from the plan to every report ---------------------------------

TITLE = "R4S | $(reboot) `id` <script>alert('x')</script> & \"quotes\", [bold]not markup[/bold]"
NAMES = [
    "; reboot",
    "$(reboot)",
    "`reboot`",
    "'single' \"double\"",
    "a | b || c",
    "<b>bold</b> & <i>",
    "[bold]not markup[/bold]",
    '=HYPERLINK("http://x")',
    "-oProxyCommand=x",
    "\\back\\slash\\",
    "*emph* _u_ # h",
    'comma, "quote"',
    "  spaced  ",
    "🙂 é ß 日本",
]


@pytest.fixture
def hostile_run(tmp_path: Path) -> tuple[Path, Path]:
    """A plan whose title and test names are hostile free text, and a store holding one
    run of it (made up results: nothing is measured)."""
    tests = "".join(f"  - id: {i}\n    name: {json.dumps(name)}\n" for i, name in enumerate(NAMES))
    plan_path = tmp_path / "hostile.yaml"
    plan_path.write_text(
        f"title: {json.dumps(TITLE)}\nlab: {{link: gbe}}\n"
        f"paths: [{{name: WAN, topology: endpoint}}]\ntests:\n{tests}",
        encoding="utf-8",
    )
    plan = load_plan(plan_path)
    db = tmp_path / "w.db"
    with Store.open(db) as store:
        run_id = store.begin_run(
            RunInfo(
                title=plan.title,
                started_at=1_607_544_000.0,
                plan_path=plan.source,
                plan_text=plan.text,
                argv=("run", str(plan_path)),
            )
        )
        for number, trial in enumerate(expand(plan)):
            store.add_outcome(run_id, _made_up(trial, 900.0 + number))
        store.finish_run(run_id, RunStatus.COMPLETE, finished_at=1_607_545_000.0)
    return plan_path, db


def _made_up(trial: object, mbit: float) -> TrialOutcome:
    from wirespeed.model import Trial

    assert isinstance(trial, Trial)
    measured = Transfer(bytes=int(mbit * 1.25e6), seconds=10.0, bits_per_second=mbit * 1e6)
    direction = DirectionResult(
        flow=Flow.UP,
        sent=measured,
        received=measured,
        streams=(StreamResult(id=3, flow=Flow.UP, received=measured),),
        intervals=(Interval(0.0, 10.0, measured.bytes, mbit * 1e6),),
    )
    return TrialOutcome(
        trial=trial,
        status=TrialStatus.OK,
        started_at=1_607_544_100.0,
        finished_at=1_607_544_111.0,
        result=Result(
            tool=trial.test.tool, protocol=trial.test.spec.protocol, directions=(direction,)
        ),
    )


def test_check_lists_free_text_names_as_written(hostile_run: tuple[Path, Path]) -> None:
    plan_path, _ = hostile_run
    status, out, err = run_cli_to_preflight("check", str(plan_path))
    assert status == 0, err
    for name in NAMES:
        assert f"s  {name}\n" in out  # "... 10 s  NAME"
    assert (
        run_cli_to_preflight("run", str(plan_path))[0] is None
    )  # a valid plan; stopped at preflight


def report(db: Path, tmp_path: Path, form: str) -> str:
    target = tmp_path / f"report.{form}"
    status, _, err = run_cli_to_preflight(
        "report", "--format", form, "--db", str(db), "-o", str(target)
    )
    assert status == 0, err
    return target.read_text(encoding="utf-8")


def test_the_terminal_report_prints_free_text_and_interprets_none_of_it(
    hostile_run: tuple[Path, Path], tmp_path: Path
) -> None:
    _, db = hostile_run
    status, out, err = run_cli_to_preflight("report", "--db", str(db))
    assert status == 0, err
    assert out.splitlines()[0] == TITLE  # "[bold]" printed, not applied
    for name in NAMES:
        if name.strip() == name and len(name) < 24:  # long or padded names wrap in cells
            assert name in out, name


def _markdown(text: str) -> str:
    """As a Markdown text shows plain text: HTML entities; pipes escaped for tables, and
    brackets so that no link or image is made."""
    for character, written in (
        ("&", "&amp;"),
        ("<", "&lt;"),
        (">", "&gt;"),
        ("[", "\\["),
        ("]", "\\]"),
        ("|", "\\|"),
    ):
        text = text.replace(character, written)
    return text


def test_markdown_escapes_pipes_and_html_and_keeps_the_rest(
    hostile_run: tuple[Path, Path], tmp_path: Path
) -> None:
    _, db = hostile_run
    text = report(db, tmp_path, "markdown")
    assert text.splitlines()[0] == "# " + _markdown(TITLE)
    rows = [line for line in text.splitlines() if line.startswith("| ")]
    for number, name in enumerate(NAMES):
        cell = f"| {number} {_markdown(name)} |"
        assert any(row.startswith(cell) for row in rows), (cell, rows)
    for row in rows:  # every row has as many cells as the header
        assert row.replace("\\|", "").count("|") == rows[0].count("|")


def test_csv_quotes_every_name_and_defuses_formulas(
    hostile_run: tuple[Path, Path], tmp_path: Path
) -> None:
    _, db = hostile_run
    rows = list(csv.DictReader(io.StringIO(report(db, tmp_path, "csv"))))
    # A text a spreadsheet would run as a formula starts with a quote.
    formula = ("=", "+", "-", "@")
    assert [row["test_name"] for row in rows] == [
        "'" + name if name.startswith(formula) else name for name in NAMES
    ]
    assert any(name.startswith(formula) for name in NAMES)


def test_json_keeps_title_and_names_exactly(hostile_run: tuple[Path, Path], tmp_path: Path) -> None:
    _, db = hostile_run
    document = json.loads(report(db, tmp_path, "json"))
    assert document["run"]["title"] == TITLE
    assert [row["test_name"] for row in document["table"]] == NAMES


def test_html_escapes_free_text_in_the_markup_and_the_data(
    hostile_run: tuple[Path, Path], tmp_path: Path
) -> None:
    _, db = hostile_run
    page = report(db, tmp_path, "html")
    assert page.count("<script") == 2  # the data block and the plotting script: no third
    assert "<b>bold</b>" not in page and "<i>" not in page
    assert f"<h1>{html.escape(TITLE)}</h1>" in page
    start = page.index(">", page.index('<script type="application/json" id="ws-data"')) + 1
    data = json.loads(page[start : page.index("</script>", start)])
    labels = {trial["test"] for trial in data["trials"]}
    assert labels == {f"{number} {name}" for number, name in enumerate(NAMES)}


def test_cli_values_that_name_tests_are_only_compared(tmp_path: Path) -> None:
    path = plan_with(tmp_path)
    for only in ("$(reboot)", "1;reboot", "`id`", "-1"):
        status, _, err = run_cli_to_preflight("run", str(path), f"--only={only}")
        assert status == 2
        assert f"no test with id {only!r} in {path}" in err
