"""The environment a command runs in: streams, TTY, colour. Injectable for tests, which run
the real CLI in-process and check its exit status and output.

Colour, as no-color.org and force-color.org define it (and rich reads it): NO_COLOR set to
anything but "" turns colour off; else FORCE_COLOR set to anything but "" turns it on even
when the output is no terminal (a pipe to `less -R`, a CI log); else colour goes to a
terminal only. An empty value counts as unset.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from rich.console import Console


def colour_from(environ: Mapping[str, str]) -> bool | None:
    """True: colour always (FORCE_COLOR); False: never (NO_COLOR, which wins); None: on a
    terminal only."""
    if environ.get("NO_COLOR", ""):
        return False
    if environ.get("FORCE_COLOR", ""):
        return True
    return None


@dataclass
class Environment:
    stdout: TextIO = field(default_factory=lambda: sys.stdout)
    stderr: TextIO = field(default_factory=lambda: sys.stderr)
    # Lambdas on purpose: sys.stdout is looked up when an Environment is made, not at import.
    stdout_is_tty: bool = field(default_factory=lambda: sys.stdout.isatty())  # noqa: PLW0108
    stderr_is_tty: bool = field(default_factory=lambda: sys.stderr.isatty())  # noqa: PLW0108
    # See colour_from; False for text that goes to files.
    colour: bool | None = field(default_factory=lambda: colour_from(os.environ))
    quiet: bool = False
    # The store when no --db is given: WIRESPEED_DB, as --db takes it; empty is as unset.
    db: str | None = field(default_factory=lambda: os.environ.get("WIRESPEED_DB") or None)

    def console(self) -> Console:
        """A rich console on stdout (imported here: rich costs 0.2 s to import)."""
        from rich.console import Console

        colour = self._colour_on(self.stdout_is_tty)
        return Console(
            file=self.stdout,
            force_terminal=colour,
            no_color=not colour,
            width=None if self.stdout_is_tty else 120,
            highlight=False,
        )

    def progress_console(self) -> Console:
        """A rich console on stderr, for the progress bar and per-trial lines: stdout keeps
        only the report, so `wirespeed run plan.yaml > table.txt` works."""
        from rich.console import Console

        colour = self._colour_on(self.stderr_is_tty)
        return Console(
            file=self.stderr,
            force_terminal=colour,
            no_color=not colour,
            # FORCE_COLOR colours the per-trial lines of a log; the bar, redrawn in place
            # with cursor moves, stays for terminals.
            force_interactive=None if self.stderr_is_tty else False,
            highlight=False,
        )

    def _colour_on(self, is_tty: bool) -> bool:
        # Decided here and passed to rich explicitly, so that rich's own reading of
        # the variables (which takes FORCE_COLOR="" for "no terminal") cannot differ.
        return is_tty if self.colour is None else self.colour

    def error(self, message: str, hint: str | None = None) -> None:
        self.stderr.write(f"wirespeed: error: {message}\n")
        if hint:
            self.stderr.write(f"  hint: {hint}\n")

    def warn(self, message: str) -> None:
        self.stderr.write(f"wirespeed: warning: {message}\n")

    def info(self, message: str) -> None:
        if not self.quiet:
            self.stderr.write(f"{message}\n")


def plain_text(draw: Callable[[Console], object]) -> str:
    """What `draw` prints on a console, as plain text for a file: no colour, 120
    columns, as the terminal's text goes to a file."""
    import io

    buffer = io.StringIO()
    draw(Environment(stdout=buffer, stdout_is_tty=False, colour=False).console())
    return buffer.getvalue()
