"""`wirespeed completion bash|zsh|fish` and `wirespeed manpage`: made from the parser, so
every command and option of the parser must be in each, and each must load in its
program (bash, zsh, fish, man). The expected names are read from the parser itself: an
option added tomorrow is expected without a change here."""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from support.cli import run_cli
from wirespeed.cli.completion import completion_script, fish_flag
from wirespeed.cli.manpage import manpage
from wirespeed.cli.parser import build_parser
from wirespeed.cli.parser_tree import Command, command_tree

COMMANDS = command_tree(build_parser()).walk()


def _generated(*argv: str) -> str:
    status, out, err = run_cli(*argv)
    assert status == 0, err
    assert out
    return out


def _subcommand_names(command: Command) -> list[str]:
    return [sub.path[-1] for sub in command.subcommands]


def test_the_tree_holds_every_command() -> None:
    names = {" ".join(command.path) for command in COMMANDS}
    assert {"run", "check", "lab up", "lab down", "report", "completion", "manpage"} <= names


@pytest.mark.parametrize("shell", ["bash", "zsh"])
def test_bash_and_zsh_scripts_name_every_command_and_option(shell: str) -> None:
    script = _generated("completion", shell)
    for command in COMMANDS:
        for name in _subcommand_names(command):
            assert name in script, f"{shell}: command {name}"
        for action in command.options:
            for option in action.option_strings:
                assert option in script, f"{shell}: {command.name} {option}"


def test_fish_script_names_every_command_and_option_under_its_command() -> None:
    lines = _generated("completion", "fish").splitlines()
    for command in COMMANDS:
        for name in _subcommand_names(command):
            assert any(f" -a {name} " in line for line in lines), f"fish: command {name}"
        own = [line for line in lines if all(word in line for word in command.path)]
        for action in command.options:
            for option in action.option_strings:
                flag = fish_flag(option)
                assert any(f" {flag} " in line for line in own), f"fish: {command.name} {option}"


def test_manpage_names_every_command_option_and_argument() -> None:
    page = _generated("manpage")
    for command in COMMANDS[1:]:
        assert f'.SS "{command.name}"' in page
    for command in COMMANDS:
        for action in command.options:
            for option in action.option_strings:
                roff = option.replace("-", "\\-")  # a hyphen, not a minus sign
                assert rf"\fB{roff}\fR" in page, f"{command.name} {option}"


def test_an_unknown_shell_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        run_cli("completion", "tcsh")
    assert exited.value.code == 2
    assert "invalid choice: 'tcsh'" in capsys.readouterr().err


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.process
def test_bash_completion_loads_and_completes(tmp_path: Path) -> None:
    script = _write(tmp_path, "wirespeed.bash", _generated("completion", "bash"))
    loaded = subprocess.run(
        ["bash", "-c", f'source "{script}" && complete -p wirespeed'],
        capture_output=True,
        text=True,
        check=True,
    )
    function = loaded.stdout.split(" -F ")[1].split()[0]
    # What bash does on Tab after `wirespeed lab u` and `wirespeed report --format m`.
    completed = subprocess.run(
        [
            "bash",
            "-c",
            f'source "{script}"; '
            'COMP_WORDS=(wirespeed lab u); COMP_CWORD=2; COMP_LINE="wirespeed lab u"; '
            f'COMP_POINT=${{#COMP_LINE}}; {function} wirespeed u lab; echo "${{COMPREPLY[@]}}"; '
            "COMP_WORDS=(wirespeed report --format m); COMP_CWORD=3; "
            'COMP_LINE="wirespeed report --format m"; COMP_POINT=${#COMP_LINE}; '
            f'{function} wirespeed m --format; echo "${{COMPREPLY[@]}}"',
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert completed.stdout.split("\n")[:2] == ["up", "markdown"], completed.stderr


@pytest.mark.process
@pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh not installed (scripts/test.sh)")
def test_zsh_completion_loads_from_fpath_and_by_eval(tmp_path: Path) -> None:
    functions = tmp_path / "zfunc"
    functions.mkdir()
    script = _write(functions, "_wirespeed", _generated("completion", "zsh"))
    # As README says: a file _wirespeed in a directory on $fpath, found by compinit; and
    # eval'd, which defines the functions in real zsh and registers them.
    loaded = subprocess.run(
        [
            "zsh",
            "-f",
            "-c",
            f'fpath=("{functions}" $fpath); autoload -Uz compinit && compinit -u -D '
            '&& echo "${_comps[wirespeed]}" '
            f'&& eval "$(<"{script}")" && echo "${{_comps[wirespeed]}}"',
        ],
        capture_output=True,
        text=True,
        env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"},
        check=True,
    )
    assert loaded.stdout.split() == ["_wirespeed", "_shtab_wirespeed"], loaded.stderr
    assert loaded.stderr == ""


@pytest.mark.process
@pytest.mark.skipif(shutil.which("fish") is None, reason="fish not installed (scripts/test.sh)")
def test_fish_completion_loads_and_completes(tmp_path: Path) -> None:
    script = _write(tmp_path, "wirespeed.fish", _generated("completion", "fish"))

    # fish keeps its own state under the XDG directories: the test's, not the user's.
    env = {
        **os.environ,
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }

    def complete(line: str) -> list[str]:
        done = subprocess.run(
            ["fish", "--no-config", "-c", f"source {script}; complete -C '{line}'"],
            capture_output=True,
            text=True,
            check=True,
            env=env,
        )
        assert not done.stderr
        return [entry.split("\t")[0] for entry in done.stdout.splitlines()]

    assert "up" in complete("wirespeed lab ")
    assert "runs" in complete("wirespeed ru")
    assert complete("wirespeed report --format m") == ["markdown"]
    assert "--sample-interval" in complete("wirespeed run --sam")
    assert "--sample-interval" not in complete("wirespeed report --")


@pytest.mark.skipif(shutil.which("man") is None, reason="man-db not installed (scripts/test.sh)")
@pytest.mark.process
def test_man_renders_the_page_without_warnings(tmp_path: Path) -> None:
    page = _write(tmp_path, "wirespeed.1", _generated("manpage"))
    shown = subprocess.run(
        ["man", "--warnings", "-E", "UTF-8", "-l", str(page)],
        capture_output=True,
        text=True,
        env={"MANWIDTH": "100", "MANPAGER": "cat", "PATH": "/usr/bin:/bin"},
        check=True,
    )
    assert shown.stderr == ""
    text = shown.stdout
    assert "NAME" in text
    assert "wirespeed lab up" in text
    assert "EXIT STATUS" in text
    assert "--sample-interval SECONDS" in text


def _parser_with_every_kind_of_argument() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="wirespeed", description="A parser.\n\nMore.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    run = sub.add_parser("run", help="run it")
    run.add_argument("plan", nargs="?", metavar="PLAN", help="a plan, or - for stdin")
    run.add_argument("-o", "--output", action="append", metavar="FILE", help="100 %% of it")
    run.add_argument("--colour", action=argparse.BooleanOptionalAction, help="colour")
    run.add_argument("--pair", nargs=2, metavar=("A", "B"), help="two")
    run.add_argument("-old", help=".starts with a dot, and a back\\slash")
    run.add_argument("--root", metavar="DIR", help="a directory")
    # With help: shtab leaves out a subcommand without (the real parser's test above would
    # fail on one, naming it).
    deep = sub.add_parser("deep", help="deep").add_subparsers(dest="deeper", required=True)
    deep.add_parser("er", help="er").add_argument("--tool", choices=["iperf2", "iperf3"])
    return parser


@pytest.mark.process
def test_new_kinds_of_arguments_are_completed_and_documented(tmp_path: Path) -> None:
    parser = _parser_with_every_kind_of_argument()
    for shell in ("bash", "zsh", "fish"):
        script = completion_script(parser, shell)
        for option in ("--output", "--no-colour", "--pair", "old", "--root", "--tool"):
            assert option.lstrip("-") in script, f"{shell}: {option}"
    fish = completion_script(parser, "fish")
    assert "-o old" in fish
    assert "-l output -r -F" in fish
    assert "-l root -x -a '(__fish_complete_directories)'" in fish
    page = _write(tmp_path, "wirespeed.1", manpage(parser))
    shown = subprocess.run(
        ["man", "--warnings", "-E", "UTF-8", "-l", str(page)],
        capture_output=True,
        text=True,
        env={"MANWIDTH": "100", "MANPAGER": "cat", "PATH": "/usr/bin:/bin"},
        check=True,
    )
    assert shown.stderr == ""
    assert ".starts with a dot, and a back\\slash" in shown.stdout
    assert "100 % of it" in shown.stdout
    assert "--pair A B" in shown.stdout
    assert "wirespeed deep er" in shown.stdout
