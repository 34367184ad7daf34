"""The argument parser read back as a tree of commands, for what is generated from it
(shell completion, the man page): one source of truth, so neither drifts from the options.

argparse keeps subcommands and their one-line help in private attributes; they are read
here only, in one place.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

# What an argument's value is, by its metavar: files and directories complete as such.
FILE_METAVARS = frozenset({"FILE", "PLAN", "DB"})
DIRECTORY_METAVARS = frozenset({"DIR"})


@dataclass(frozen=True)
class Command:
    path: tuple[str, ...]  # () for wirespeed itself, ("lab", "up") for `wirespeed lab up`
    parser: argparse.ArgumentParser
    summary: str  # the one line `wirespeed --help` shows for it ("" for wirespeed itself)
    options: tuple[argparse.Action, ...]  # -h/--help included
    positionals: tuple[argparse.Action, ...]  # the subcommand's own slot excluded
    subcommands: tuple[Command, ...]

    @property
    def name(self) -> str:
        return " ".join(("wirespeed", *self.path))

    def walk(self) -> list[Command]:
        """This command and every command below it, parents first."""
        found = [self]
        for sub in self.subcommands:
            found += sub.walk()
        return found


def command_tree(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = (), summary: str = ""
) -> Command:
    options: list[argparse.Action] = []
    positionals: list[argparse.Action] = []
    subcommands: list[Command] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            summaries = {choice.dest: choice.help or "" for choice in action._choices_actions}
            for name, subparser in action.choices.items():
                subcommands.append(command_tree(subparser, (*path, name), summaries.get(name, "")))
        elif action.help == argparse.SUPPRESS:
            continue
        elif action.option_strings:
            options.append(action)
        else:
            positionals.append(action)
    return Command(path, parser, summary, tuple(options), tuple(positionals), tuple(subcommands))


def takes_value(action: argparse.Action) -> bool:
    return action.nargs != 0


def value_kind(action: argparse.Action) -> str | None:
    """ "file" or "directory" when the value names one (by its metavar), else None."""
    metavar = action.metavar if isinstance(action.metavar, str) else None
    if metavar in FILE_METAVARS:
        return "file"
    if metavar in DIRECTORY_METAVARS:
        return "directory"
    return None


def help_text(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    """The action's help as --help prints it (%(default)s and the like filled in), on one
    line."""
    if not action.help:
        return ""
    expanded = parser._get_formatter()._expand_help(action)
    return " ".join(expanded.split())
