"""CSV text that a spreadsheet reads as it was written: every CSV of ours (a run's, a
comparison's, a trend's) is written by tidy_csv."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Mapping
from typing import Any

# A spreadsheet takes a cell that starts with one of these for a formula: a test name
# "=HYPERLINK(...)" would be a link that sends what it names away, "=cmd|..." once ran a
# program. OWASP's advice on CSV injection: such text starts with a ' instead. Spreadsheets
# trim leading blanks on import (Google Sheets, LibreOffice's "trim spaces"), so " =1" is a
# formula too: the first character after any whitespace decides.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
# The writer quotes a field that holds its line terminator, LF, but leaves a CR bare, and
# a bare CR ends the row for a spreadsheet: the rest of the text would be a row of its own.
CARRIAGE_RETURNS = re.compile(r"\r\n?")


def spreadsheet_safe(value: object) -> object:
    """A text cell as a spreadsheet should read it: with a ' before it where it would read
    as a formula, and its line breaks as LF, so that the cell stays one quoted field.
    Numbers stay as they are: -5.2 is a number, not a formula."""
    if not isinstance(value, str):
        return value
    if value.startswith(FORMULA_STARTS) or value.lstrip().startswith(FORMULA_STARTS):
        value = "'" + value
    return CARRIAGE_RETURNS.sub("\n", value)


def tidy_csv(columns: Iterable[str], rows: Iterable[Mapping[str, Any]]) -> str:
    """The rows under a header line, each text cell made safe for spreadsheets: every CSV
    of ours is written here."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(columns), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({key: spreadsheet_safe(value) for key, value in row.items()})
    return out.getvalue()
