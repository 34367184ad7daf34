"""A compared figure's tone: better or worse than the first column's where the test shows
a difference, the same where it does not (report/many_document.py); the terminal colours
it and the HTML gives its cell the class."""

from __future__ import annotations

import io
from collections.abc import Sequence

from rich.console import Console

from support.bench_samples import NEO2, R4S_419, R4S_510, device_path, repeated
from support.comparison_text import compare_html
from support.samples import run_record
from wirespeed.analysis.compare_many import ManyComparison, compare_many
from wirespeed.report.document import Tone
from wirespeed.report.html import TONE_CSS
from wirespeed.report.many_document import comparison_document
from wirespeed.report.terminal import render_document

SPREAD = (1.0, 1.001, 0.999, 1.002, 0.998)


def _boards(*boards: tuple[str, Sequence[float]]) -> ManyComparison:
    return compare_many(
        [
            run_record(*repeated(device_path(name), bench, SPREAD), run_id=number)
            for number, (name, bench) in enumerate(boards, start=1)
        ]
    )


def _tones(comparison: ManyComparison) -> set[tuple[Tone | None, ...]]:
    (part,) = comparison_document(comparison).parts
    return {row.tones for table in part.tables for row in table.rows}


def test_a_slower_board_is_worse_and_a_faster_one_better() -> None:
    # 4.19 and 5.10 on the R4S are one speed; the Neo2 is far slower (captured openssl).
    assert _tones(_boards(("R4S", R4S_419), ("R4S", R4S_510), ("Neo2", NEO2))) == {
        (None, Tone.SAME, Tone.WORSE)
    }
    assert _tones(_boards(("Neo2", NEO2), ("R4S", R4S_419))) == {(None, Tone.BETTER)}


def test_the_terminal_and_the_page_show_the_tone() -> None:
    comparison = _boards(("R4S", R4S_419), ("R4S", R4S_510), ("Neo2", NEO2))
    out = io.StringIO()
    console = Console(file=out, width=200, force_terminal=True, color_system="standard")
    render_document(comparison_document(comparison), console)
    text = out.getvalue()
    assert "\x1b[31m25.19 ±0.05 MB/s\x1b[0m" in text  # worse: red
    assert "\x1b[2m92.3 ±0.2 MB/s\x1b[0m" in text  # no difference: dim
    assert "\x1b[32m" not in text  # nothing better
    page = compare_html(comparison)
    assert TONE_CSS in page
    assert '<td class="num worse">25.19 ±0.05 MB/s<br>\N{MINUS SIGN}72.6 %*</td>' in page
    assert '<td class="num same">92.3 ±0.2 MB/s<br>+0.2 %~</td>' in page
    assert '<td class="num">92.1 ±0.2 MB/s</td>' in page  # the first column: none
