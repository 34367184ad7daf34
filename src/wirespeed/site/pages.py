"""The two pages of the site that are not a card's or a trend's: the index and the
comparison. Each is a shell; its script fills it from the data files beside it."""

from __future__ import annotations

import html

_HEAD = (
    "<!DOCTYPE html>\n"
    '<html lang="en"><head><meta charset="utf-8">'
    '<meta name="viewport" content="width=device-width, initial-scale=1">'
    '<meta name="generator" content="wirespeed">'
    "<title>{title} \N{EN DASH} wirespeed</title>"
    '<link rel="stylesheet" href="site.css">'
)


def index_page(title: str = "Results") -> str:
    return (
        _HEAD.format(title=html.escape(title))
        + '<script src="index.js" defer></script><script src="data/index.js" defer></script>'
        + f"</head><body><h1>{html.escape(title)}</h1>"
        "<p>Each row is a device card (or a run) from a bundle of this repository. Sort by "
        "a heading; sorted by a figure, the rows are grouped by how it was measured (its "
        "comparison key: tool, topology, link, settings), and only figures of one group "
        "compare. Choose two or more rows to compare their cards.</p>"
        '<div class="controls"><input type="search" id="filter" '
        'placeholder="Filter: board, SoC, firmware, link, bundle…" aria-label="filter">'
        '<label><input type="checkbox" id="valid-only"> valid to compare only</label>'
        '<button type="button" id="compare" disabled>Compare 0 chosen</button>'
        '<span id="count"></span></div>'
        '<p id="bad" class="bad" hidden></p>'
        '<div class="wide"><table id="results"><thead><tr></tr></thead>'
        '<tbody id="rows"></tbody></table></div>'
        "<noscript>The table needs JavaScript; each card's page is in cards/.</noscript>"
        "</body></html>\n"
    )


def compare_page() -> str:
    return (
        _HEAD.format(title="Cards compared") + '<script src="stats.js"></script>' + "</head><body>"
        '<nav><a href="index.html">\N{LEFTWARDS ARROW} all results</a></nav>'
        '<p id="status"></p><main id="comparison"></main>'
        '<script src="compare.js"></script></body></html>\n'
    )
