"""Options that several commands take, each added the same way wherever it is."""

from __future__ import annotations

import argparse


class _DefaultStorePath:
    """The default store's path, worked out only when a help text is printed: it costs
    the store's imports, which every other command line would pay for nothing."""

    def __str__(self) -> str:
        from wirespeed.store.location import shown_default_db_path

        return shown_default_db_path()


def add_flag(parser: argparse._ActionsContainer, *names: str, help: str) -> None:
    """An on/off option: most of the command line's options are one."""
    parser.add_argument(*names, action="store_true", help=help)


def add_db(parser: argparse.ArgumentParser) -> None:
    db = parser.add_argument(
        "--db",
        metavar="DB",
        help="the store: a SQLite file or a postgresql:// URL (default: $WIRESPEED_DB if "
        "set and not empty, else %(default_store)s; under sudo, the invoking user's)",
    )
    # argparse fills %(name)s of a help text from the action's attributes.
    setattr(db, "default_store", _DefaultStorePath())  # noqa: B010


def add_row(parser: argparse.ArgumentParser) -> None:
    """--row and --row-header: a card as one Markdown row for forum tables (card/row.py)."""
    add_flag(
        parser,
        "--row",
        help="print the card's one-line Markdown row for forum tables (device, SoC, "
        "firmware, kernel, TCP, NDR 64 B, WireGuard, AES-256-GCM, bufferbloat, verdict)",
    )
    add_flag(parser, "--row-header", help="with --row: the table's header line above it")


def add_budgets(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--as",
        dest="budgets",
        action="append",
        metavar="BUDGET",
        help="also say each goodput as an application's budget: sdr:sc16 or sdr:cs8 (Msps "
        "of 4- or 2-byte complex samples), video:6M[,headroom=20%%] (whole streams of that "
        "rate), MB/s, MiB/s; repeat for several (docs/budgets.md)",
    )


def add_output_files(parser: argparse.ArgumentParser, help: str) -> None:
    """-o FILE, repeatable: each file written in the format of its extension."""
    parser.add_argument("-o", "--output", action="append", metavar="FILE", help=help)


def add_outputs(parser: argparse.ArgumentParser, html: str) -> None:
    """--format and -o, of a command that writes a report in the format asked."""
    parser.add_argument(
        "--format",
        choices=["terminal", "markdown", "csv", "json", "html"],
        help="output format of stdout and of every -o file (default: terminal, and each "
        "file's from its extension)",
    )
    add_output_files(
        parser,
        help=f"write to FILE, not stdout, in the format of its extension (.md .csv .json "
        f"{html}.txt: the terminal's text); repeat for several files, e.g. -o t.md -o t.json",
    )


def add_ssh(parser: argparse.ArgumentParser) -> None:
    add_flag(
        parser,
        "--accept-new-host-key",
        help="trust an SSH host key seen for the first time and add it to known_hosts "
        "(as ssh -o StrictHostKeyChecking=accept-new); a changed key is always refused",
    )
    parser.add_argument(
        "--ssh-config",
        metavar="FILE",
        help="OpenSSH client config to read (default: ~/.ssh/config); keys come from "
        "ssh-agent and IdentityFile, a password from $WIRESPEED_SSH_PASSWORD",
    )
