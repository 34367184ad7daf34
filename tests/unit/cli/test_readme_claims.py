"""The README is what a newcomer reads first: its commands must be this wirespeed's.

Every `wirespeed ...` line of its code blocks is parsed by the real argument parser (an
option or a command that went away fails here), every command the parser has is shown
there at least once, and every file it points to exists.
"""

from __future__ import annotations

import argparse
import re
import shlex
from pathlib import Path

import pytest

from wirespeed.cli.parser import build_parser

ROOT = Path(__file__).resolve().parents[3]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _code_lines() -> list[str]:
    lines: list[str] = []
    inside = False
    for line in README.splitlines():
        if line.startswith("```"):
            inside = not inside
            continue
        if inside:
            lines.append(line)
    return lines


def _wirespeed_commands() -> list[list[str]]:
    """The argument lists of every `wirespeed` call in the README's code blocks."""
    commands: list[list[str]] = []
    for line in _code_lines():
        code = line.split(" #", 1)[0]
        for match in re.finditer(r"(?:^|[|(;]\s*)wirespeed\s+([^|)>;]*)", code):
            commands.append(shlex.split(match.group(1)))
    return commands


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def test_the_readme_shows_wirespeed_commands() -> None:
    assert len(_wirespeed_commands()) > 30


@pytest.mark.parametrize("argv", _wirespeed_commands(), ids=" ".join)
def test_each_command_of_the_readme_parses(argv: list[str]) -> None:
    parser = build_parser()
    try:
        parser.parse_args(argv)
    except SystemExit as exit_:
        pytest.fail(f"README's `wirespeed {' '.join(argv)}` is refused (exit {exit_.code})")


def test_every_command_is_shown_in_the_readme() -> None:
    shown = {argv[0] for argv in _wirespeed_commands() if argv}
    hidden = {"completion", "manpage"}  # named in prose: how to install them
    missing = set(_subcommands(build_parser())) - shown - hidden
    assert not missing, f"commands the README never shows: {sorted(missing)}"
    for name in hidden:
        assert f"wirespeed {name}" in README


def test_every_file_the_readme_names_exists() -> None:
    named = set(re.findall(r"\b((?:docs|examples|scripts)/[\w./-]+\.(?:md|yaml|sh))", README))
    assert named
    missing = sorted(name for name in named if not (ROOT / name).exists())
    assert not missing, f"the README names files that do not exist: {missing}"
