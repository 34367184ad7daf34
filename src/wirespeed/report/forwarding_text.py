"""The forwarding-rate table in words, the same for the terminal, Markdown and HTML.

Columns per direction: the main goal (NDR) in frames/s with its spread, the same as
layer-2 / wire Mbit/s, as % of the link's frame-rate ceiling (not on an unshaped link),
the forwarding rate at that load, every other goal (PDR) in frames/s, and what the
search took. A figure that is a lower bound only (the generator's limit, or the plan's
max_rate, stopped the search below the link's ceiling) is written "≥ 180,000": the
device forwards at least that, and a note says so.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from wirespeed.analysis.stats import Summary
from wirespeed.report.forwarding import SEARCH_TIME, SEARCH_TRIALS, ForwardingCell, ForwardingTable
from wirespeed.report.text import DASH, link_text, note_marks
from wirespeed.search.frames import PREAMBLE_AND_GAP

FRAME_CONVENTION = (
    "Frame sizes are Ethernet frames counted with their FCS, without preamble and "
    f"inter-frame gap (RFC 2544); L2 is the frames' bits, L1 (wire) adds {PREAMBLE_AND_GAP} B "
    "per frame for preamble, start delimiter and gap; a frame under 64 B is padded to 64."
)
ARROWS = {"up": "\N{UPWARDS ARROW}", "down": "\N{DOWNWARDS ARROW}", "both": "\N{UP DOWN ARROW}"}
AT_LEAST = "\N{GREATER-THAN OR EQUAL TO} "


@dataclass(frozen=True)
class FigureColumn:
    direction: str
    header: str  # "↑ NDR pps"
    text: Callable[[ForwardingCell], str]


def direction_text(direction: str) -> str:
    return ARROWS.get(direction, direction)


def _median(cell: ForwardingCell, name: str) -> float | None:
    figure = cell.figure(name)
    summary = None if figure is None else figure.summary
    return None if summary is None else summary.median


def pps_text(summary: Summary) -> str:
    """ "14,940 ±30": the median and the farther end of its interval, whole frames/s
    (a search's bounds are a fraction of a percent apart at best)."""
    interval = summary.interval
    if interval is None:
        return f"{summary.median:,.0f}"
    reach = max(summary.median - interval.low, interval.high - summary.median)
    return f"{summary.median:,.0f} \N{PLUS-MINUS SIGN}{reach:,.0f}"


def _mbit(bits_per_second: float) -> str:
    value = bits_per_second / 1e6
    digits = 2 if value < 10 else 1
    return f"{value:.{digits}f}"


def _goal_text(table: ForwardingTable, goal: str, marks: bool) -> Callable[[ForwardingCell], str]:
    widest = max((f.n for c in table.cells if (f := c.figure(goal)) is not None), default=0)

    def text(cell: ForwardingCell) -> str:
        figure = cell.figure(goal)
        summary = None if figure is None else figure.summary
        shown = DASH if summary is None else pps_text(summary)
        if summary is not None and cell.at_least(goal):
            shown = AT_LEAST + shown
        if figure is not None and 0 < figure.n < widest:
            shown += f" (n={figure.n})"
        if marks and cell.notes:
            shown += " " + note_marks(cell.notes)
        return shown

    return text


def _bits_text(goal: str) -> Callable[[ForwardingCell], str]:
    def text(cell: ForwardingCell) -> str:
        l2, l1 = _median(cell, f"{goal} L2"), _median(cell, f"{goal} L1")
        if l2 is None or l1 is None:
            return DASH
        return f"{_mbit(l2)}/{_mbit(l1)}"

    return text


def _share_text(goal: str) -> Callable[[ForwardingCell], str]:
    def text(cell: ForwardingCell) -> str:
        share = _median(cell, f"{goal} of ceiling")
        return DASH if share is None else f"{share:.1f} %"

    return text


def _rate_text(goal: str) -> Callable[[ForwardingCell], str]:
    def text(cell: ForwardingCell) -> str:
        rate = _median(cell, f"{goal} forwarding rate")
        return DASH if rate is None else f"{rate:,.0f}"

    return text


def _search_text(cell: ForwardingCell) -> str:
    trials, seconds = _median(cell, SEARCH_TRIALS), _median(cell, SEARCH_TIME)
    if trials is None or seconds is None:
        return DASH
    return f"{trials:.0f}/{seconds:.0f} s"


def columns(table: ForwardingTable) -> list[FigureColumn]:
    found: list[FigureColumn] = []
    if not table.goals:
        return found
    main, *others = table.goals
    for direction in table.directions:
        arrow = direction_text(direction)
        found.append(FigureColumn(direction, f"{arrow} {main} pps", _goal_text(table, main, True)))
        found.append(FigureColumn(direction, f"{arrow} L2/L1 Mbit/s", _bits_text(main)))
        if table.has_ceiling:
            found.append(FigureColumn(direction, f"{arrow} % of ceiling", _share_text(main)))
        found.append(FigureColumn(direction, f"{arrow} fwd. pps", _rate_text(main)))
        for goal in others:
            found.append(
                FigureColumn(direction, f"{arrow} {goal} pps", _goal_text(table, goal, False))
            )
        found.append(FigureColumn(direction, f"{arrow} trials/s", _search_text))
    return found


def header(table: ForwardingTable) -> list[str]:
    return ["Frame", *(column.header for column in columns(table))]


def row_texts(table: ForwardingTable) -> list[list[str]]:
    """Each row's texts: the frame size, then each column's."""
    shown = columns(table)
    found = []
    for row in table.rows:
        texts = [f"{row.frame} B"]
        for column in shown:
            cell = row.cells[table.directions.index(column.direction)]
            texts.append("" if cell is None else column.text(cell))
        found.append(texts)
    return found


def title(table: ForwardingTable) -> str:
    """ "fwd forwarding rate on Br0: gbe (1 Gbit/s), MTU 1500", with failures and the
    trials' own notes."""
    text = f"{table.test_id} {table.test_name} on {table.place.label}: {link_text(table.link)}"
    if table.trials_failed:
        total = table.trials_ok + table.trials_failed
        text += f"; {table.trials_failed} of {total} trials failed"
    if table.notes:
        text += " " + note_marks(table.notes)
    return text


def _percent(ratio: float) -> str:
    percent = ratio * 100
    return f"{percent:g} %"


def goals_text(table: ForwardingTable) -> str:
    """ "NDR: no loss; PDR: loss at most 0.5 %" as the searches' goals said."""
    if not table.goal_specs:
        return ", ".join(table.goals)
    said = []
    for goal in table.goal_specs:
        loss = "no loss" if goal.loss_ratio == 0 else f"loss at most {_percent(goal.loss_ratio)}"
        said.append(f"{goal.name}: {loss}")
    return "; ".join(said)


def legend(table: ForwardingTable) -> str:
    """What the figures are, said under the table."""
    counts = {f.n for c in table.cells for name, f in c.figures if name == SEARCH_TRIALS}
    widest = max(counts, default=0)
    if widest > 1:
        over = (
            f"the median of {widest} repetitions \N{PLUS-MINUS SIGN} the farther end of "
            "its 95 % interval"
        )
    else:
        over = "one repetition each"
    main = table.goals[0] if table.goals else "NDR"
    both = (
        f" {ARROWS['both']} (both): each direction's figures, the two sent at once, "
        "never their sum."
        if "both" in table.directions
        else ""
    )
    ceiling = ", % of the link's frame-rate ceiling" if table.has_ceiling else ""
    goals = goals_text(table)  # none where every search failed
    return (
        f"Frames/s per direction offered by the generator, {over}"
        f"{f' ({goals})' if goals else ''}: "
        f"the highest load forwarded within the goal's loss; L2/L1 the {main} in Mbit/s"
        f"{ceiling}; fwd. the frames/s that arrived at that load (the forwarding rate); "
        "trials/s the search's trials and seconds of traffic. "
        f"{AT_LEAST.strip()}: a lower bound, where the search could go no higher (the "
        "generator's limit or max_rate): the device forwards at least that."
        f"{both}"
    )


def legend_lines(table: ForwardingTable) -> list[str]:
    return [legend(table), FRAME_CONVENTION]
