"""A device card's page in real headless Chromium, from the real tuned lab card of
tests/fixtures/cards: every part's box holds its figures (stock, tuned and change beside
each ceiling and spread) without spilling out of it, on a wide screen, a narrow one and
printed.

Screenshots are kept in out/test-artifacts/ (gitignored) for a person to look at.
"""

from __future__ import annotations

import lzma
from collections.abc import Iterator
from pathlib import Path

import pytest

from browser.chromium_cdp import chromium, chromium_path
from browser.test_html_report_browser import ARTIFACTS, _problems
from wirespeed.card.output import card_report, render_card
from wirespeed.card.summary import card_summary
from wirespeed.store import Store
from wirespeed.store.records import RunRecord

pytestmark = pytest.mark.browser

CHROMIUM = chromium_path()
if CHROMIUM is None:
    pytest.skip(
        "chromium is not installed (Debian: apt-get install chromium)", allow_module_level=True
    )

TUNED = Path(__file__).parents[1] / "fixtures" / "cards" / "tuned.db.xz"

# What reaches past where it belongs: a part's box past the card, a cell of its table past
# the box (or, where the table scrolls in its box, the scrolling frame past the box); each
# with its text, its right edge and its container's.
SPILLED = """(function () {
  var out = [], card = document.getElementById('device-card').getBoundingClientRect();
  function past(el, within) {
    var r = el.getBoundingClientRect();
    return r.right > within.right + 0.5 || r.left < within.left - 0.5;
  }
  document.querySelectorAll('#device-card .docpart').forEach(function (part) {
    var box = part.getBoundingClientRect();
    if (past(part, card)) out.push([part.id, '', Math.round(box.right), Math.round(card.right)]);
    part.querySelectorAll('td, th').forEach(function (cell) {
      var frame = cell.closest('.scroll'), scrolls = frame && frame.scrollWidth > frame.clientWidth;
      var shown = scrolls ? frame : cell;
      if (past(shown, box)) out.push([part.id, cell.textContent,
        Math.round(shown.getBoundingClientRect().right), Math.round(box.right)]);
    });
  });
  return out;
})()"""


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunRecord]:
    db = tmp_path_factory.mktemp("card-page") / "runs.db"
    db.write_bytes(lzma.decompress(TUNED.read_bytes()))
    store = Store.open(str(db), read_only=True)
    try:
        yield store.load_run(1, intervals="packed", outputs=True, commands=True)
    finally:
        store.close()


@pytest.mark.parametrize(
    ("width", "media"), [(1280, "screen"), (760, "screen"), (480, "screen"), (794, "print")]
)
def test_each_part_of_a_tuned_card_holds_its_figures(
    record: RunRecord, tmp_path: Path, width: int, media: str
) -> None:
    assert CHROMIUM is not None
    report = card_report(record)
    card = card_summary(report)
    out = tmp_path / "card.html"
    out.write_text(render_card("html", report, record), encoding="utf-8")
    with chromium(CHROMIUM) as browser:
        page = browser.open(out.as_uri(), width=width)
        assert page.wait_for("document.documentElement.getAttribute('data-ready')") == "true"
        page.send("Emulation.setEmulatedMedia", {"media": media})
        boxes = page.evaluate(
            "Array.from(document.querySelectorAll('#device-card .docpart')).map(e => e.id)"
        )
        assert boxes == [f"device-card-{part.part.key}" for part in card.parts]
        shown = page.evaluate("document.getElementById('device-card').innerText")
        assert "Stock" in shown and "Tuned" in shown and "Change" in shown
        assert page.evaluate(SPILLED) == []
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(ARTIFACTS / f"card-tuned-{width}-{media}.png", width=width)
        assert _problems(page) == []
