"""Shell completion scripts made from the argument parser, so they know every command and
option the installed wirespeed has: bash and zsh by shtab, fish here (shtab has none).

Values complete as files or directories by their metavar (parser_tree.value_kind): an
option added later with metavar FILE completes file names with no change here.
"""

from __future__ import annotations

import argparse

from wirespeed.cli.parser_tree import Command, command_tree, help_text, takes_value, value_kind

SHELLS = ("bash", "zsh", "fish")

# How each shell completes a file or a directory name, in shtab's terms.
_SHTAB_KINDS = {
    "file": {"bash": "_shtab_compgen_files", "zsh": "_files"},
    "directory": {"bash": "_shtab_compgen_dirs", "zsh": "_files -/"},
}


def completion_script(parser: argparse.ArgumentParser, shell: str) -> str:
    if shell == "fish":
        return fish_script(command_tree(parser))
    import shtab  # only here: `wirespeed --help` stays fast

    for command in command_tree(parser).walk():
        for action in (*command.options, *command.positionals):
            kind = value_kind(action)
            if kind is not None:
                action.complete = _SHTAB_KINDS[kind]  # type: ignore[attr-defined]
    script: str = shtab.complete(parser, shell=shell)
    return script


def fish_script(root: Command) -> str:
    lines = [
        "# fish completion for wirespeed, made by `wirespeed completion fish`",
        "complete -c wirespeed -f  # no file names unless an argument takes one",
    ]
    for command in root.walk():
        lines += _fish_command(command)
    return "\n".join(lines) + "\n"


def _fish_command(command: Command) -> list[str]:
    here = _fish_condition(command)
    lines = []
    if command.subcommands:
        names = " ".join(sub.path[-1] for sub in command.subcommands)
        # Below its parent, and before any of its own subcommands is named.
        offer = "__fish_use_subcommand" if not command.path else f"{here}; and not {_seen(names)}"
        for sub in command.subcommands:
            lines.append(
                f"complete -c wirespeed -n {_quote(offer)} -a {sub.path[-1]} "
                f"-d {_quote(_short(sub.summary))}"
            )
    for action in command.options:
        flags = []
        for option in action.option_strings:
            flags.append(fish_flag(option))
        lines.append(
            f"complete -c wirespeed -n {_quote(here)} {' '.join(flags)}"
            f"{_fish_value(action)} -d {_quote(_short(help_text(command.parser, action)))}"
        )
    for action in command.positionals:
        if action.choices is not None:
            values = " ".join(str(choice) for choice in action.choices)
            lines.append(f"complete -c wirespeed -n {_quote(here)} -a {_quote(values)}")
        elif value_kind(action) == "file":
            lines.append(f"complete -c wirespeed -n {_quote(here)} -F")
    return lines


def fish_flag(option: str) -> str:
    """fish's words for an option: -l for --long, -s for -x, -o for an old-style -long."""
    if option.startswith("--"):
        return f"-l {option[2:]}"
    return f"-s {option[1:]}" if len(option) == 2 else f"-o {option[1:]}"


def _fish_condition(command: Command) -> str:
    """True while the command line is at this command (its words seen, no deeper one)."""
    if not command.path:
        return "__fish_use_subcommand"
    return "; and ".join(_seen(word) for word in command.path)


def _seen(words: str) -> str:
    return f"__fish_seen_subcommand_from {words}"


def _fish_value(action: argparse.Action) -> str:
    """What an option's value completes to: its choices, files, directories or nothing."""
    if not takes_value(action):
        return ""
    if action.choices is not None:
        return f" -x -a {_quote(' '.join(str(choice) for choice in action.choices))}"
    kind = value_kind(action)
    if kind == "file":
        return " -r -F"
    if kind == "directory":
        return " -x -a '(__fish_complete_directories)'"
    return " -x"


def _short(text: str) -> str:
    """The first clause of a help text: fish shows descriptions in one narrow column."""
    first = text.split("; ", maxsplit=1)[0].split(" (", maxsplit=1)[0].strip()
    return first if len(first) <= 70 else first[:69].rstrip() + "…"


def _quote(text: str) -> str:
    r"""A fish single-quoted string: inside, only \\ and \' are escapes."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"
