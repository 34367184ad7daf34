"""The environment a command runs in: streams, TTY, colour. Injectable for tests, which run
the real CLI in-process and check its exit status and output."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from rich.console import Console


@dataclass
class Environment:
    stdout: TextIO = field(default_factory=lambda: sys.stdout)
    stderr: TextIO = field(default_factory=lambda: sys.stderr)
    # Lambdas on purpose: sys.stdout is looked up when an Environment is made, not at import.
    stdout_is_tty: bool = field(default_factory=lambda: sys.stdout.isatty())  # noqa: PLW0108
    stderr_is_tty: bool = field(default_factory=lambda: sys.stderr.isatty())  # noqa: PLW0108
    colour: bool = field(default_factory=lambda: "NO_COLOR" not in os.environ)
    quiet: bool = False
    # The store when no --db is given: WIRESPEED_DB, as --db takes it; empty is as unset.
    db: str | None = field(default_factory=lambda: os.environ.get("WIRESPEED_DB") or None)

    def console(self) -> Console:
        """A rich console on stdout (imported here: rich costs 0.2 s to import)."""
        from rich.console import Console

        return Console(
            file=self.stdout,
            force_terminal=self.stdout_is_tty and self.colour,
            no_color=not self.colour,
            width=None if self.stdout_is_tty else 120,
            highlight=False,
        )

    def progress_console(self) -> Console:
        """A rich console on stderr, for the progress bar and per-trial lines: stdout keeps
        only the report, so `wirespeed run plan.yaml > table.txt` works."""
        from rich.console import Console

        return Console(
            file=self.stderr,
            force_terminal=self.stderr_is_tty and self.colour,
            no_color=not self.colour,
            highlight=False,
        )

    def error(self, message: str, hint: str | None = None) -> None:
        self.stderr.write(f"wirespeed: error: {message}\n")
        if hint:
            self.stderr.write(f"  hint: {hint}\n")

    def warn(self, message: str) -> None:
        self.stderr.write(f"wirespeed: warning: {message}\n")

    def info(self, message: str) -> None:
        if not self.quiet:
            self.stderr.write(f"{message}\n")
