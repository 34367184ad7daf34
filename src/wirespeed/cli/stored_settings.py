"""The settings of a run stored before runs kept them (schema version 6 and earlier, or
imported), read from the command line stored with it by this version's parser, as the
version that measured it read it (run/resume.py asks for them)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from wirespeed.cli.measuring import settings_of
from wirespeed.errors import UsageError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from wirespeed.run.settings import RunSettings


def settings_from_command_line(run_id: int, argv: Sequence[str]) -> RunSettings:
    """The settings of `wirespeed run ...` or `wirespeed card ...` as given on argv."""
    from wirespeed.cli.parser import build_parser

    try:
        original = build_parser().parse_args(list(argv))
    except SystemExit:
        raise UsageError(
            f"the command line stored with run {run_id} cannot be read by this version of wirespeed"
        ) from None
    return settings_of(original)
