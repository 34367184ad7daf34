"""wirespeed(1), the man page, in roff, made from the argument parser: every command with
its description and every option with its help, as `--help` shows them, so the page
never lags behind the options.

The parser's epilog becomes sections of their own: a paragraph headed `examples:` becomes
EXAMPLES (kept as laid out), `exit status: ...` becomes EXIT STATUS.
"""

from __future__ import annotations

import argparse
import re

from wirespeed import __version__
from wirespeed.cli.parser_tree import Command, command_tree, help_text, takes_value

_EPILOG_HEADING = re.compile(r"^(?P<title>[a-z][a-z ]*):\s*(?P<rest>.*)$")


def manpage(parser: argparse.ArgumentParser) -> str:
    root = command_tree(parser)
    lines = [
        f'.TH WIRESPEED 1 "" "wirespeed {__version__}" "User Commands"',
        ".SH NAME",
        r"wirespeed \- " + _text(_first_line(parser.description or "")).rstrip("."),
        ".SH SYNOPSIS",
        ".B wirespeed",
        r"[\fIOPTIONS\fR] \fICOMMAND\fR [\fIARGS\fR]",
        ".SH DESCRIPTION",
        *_paragraphs(parser.description or ""),
        ".SH OPTIONS",
        *_options(root),
        ".SH COMMANDS",
    ]
    for command in root.walk()[1:]:
        lines += _command(command)
    lines += _epilog(parser.epilog or "")
    return "\n".join(lines) + "\n"


def _command(command: Command) -> list[str]:
    usage = " ".join(command.parser.format_usage().split()).removeprefix("usage: ")
    lines = [f".SS {_quoted(command.name)}", ".PP", _text(usage)]
    description = command.parser.description or command.summary
    lines += _paragraphs(description)
    for action in command.positionals:
        # An argument without help still gets its line ("\&": an empty one roff keeps).
        body = _text(help_text(command.parser, action)) or r"\&"
        lines += [".TP", rf"\fI{_text(_metavar(action))}\fR", body]
    lines += _options(command)
    return lines


def _options(command: Command) -> list[str]:
    lines = []
    for action in command.options:
        names = ", ".join(rf"\fB{_text(option)}\fR" for option in action.option_strings)
        if takes_value(action):
            names += rf" \fI{_text(_metavar(action))}\fR"
        lines += [".TP", names, _text(help_text(command.parser, action)) or r"\&"]
    return lines


def _metavar(action: argparse.Action) -> str:
    if isinstance(action.metavar, tuple):
        return " ".join(action.metavar)
    if action.metavar is not None:
        return action.metavar
    if action.choices is not None:
        return "{" + ",".join(str(choice) for choice in action.choices) + "}"
    # As --help names it: an option's value by its dest in capitals, a positional as is.
    return action.dest.upper() if action.option_strings else action.dest


def _epilog(epilog: str) -> list[str]:
    """Each `heading:` paragraph of the epilog as a section; indented lines keep their
    layout (examples), others are filled."""
    lines: list[str] = []
    for block in epilog.strip().split("\n\n"):
        if not block.strip():
            continue
        head, *body = block.splitlines()
        match = _EPILOG_HEADING.match(head)
        if match is None:
            lines += _paragraphs(block)
            continue
        lines.append(f".SH {_quoted(match['title'].upper())}")
        if body and all(line.startswith(" ") for line in body):
            lines += [".nf", *(_text(line.strip()) for line in body), ".fi"]
        else:
            lines += _paragraphs(" ".join([match["rest"], *body]))
    return lines


def _paragraphs(text: str) -> list[str]:
    lines = []
    for paragraph in text.strip().split("\n\n"):
        if paragraph.strip():
            lines += [".PP", _text(" ".join(paragraph.split()))]
    return lines


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""


def _text(text: str) -> str:
    """Text as roff prints it: backslashes and hyphens escaped, and a line that starts
    with a dot or quote (a request to roff) made plain text."""
    escaped = text.replace("\\", r"\e").replace("-", r"\-")
    return r"\&" + escaped if escaped.startswith((".", "'")) else escaped


def _quoted(text: str) -> str:
    return '"' + _text(text).replace('"', r"\(dq") + '"'
