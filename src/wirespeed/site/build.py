"""`wirespeed site DIR -o OUT`: the static site of every bundle under DIR.

OUT/index.html       the table of every run (data/index.js: one row each, a few hundred
                     bytes), sorted and filtered in the page
OUT/cards/P.html     each card's page: the card's own HTML (card/output.py)
OUT/data/cards/P.js  what a comparison needs of that card, loaded only when chosen
OUT/compare.html     the cards chosen in the table side by side (site/assets/compare.js)
OUT/devices/D.html   each device's figures over firmware with the trend's verdicts

Every file is read from the page's own directory with <script src>, which a browser
allows from file:// as it does from a web server: no server, nothing fetched elsewhere.
Bundles are read in parallel, one process a core; a bundle that cannot be read is named
and left out (`--check` says the same before a bundle is merged).
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wirespeed.errors import UsageError
from wirespeed.model import Result
from wirespeed.site.gather import Entry, bundle_files, entries, read_bundle
from wirespeed.store.records import RunRecord

if TYPE_CHECKING:
    from wirespeed.card.summary import CardSummary
    from wirespeed.report.model import Report

ASSETS = ("site.css", "index.js", "compare.js", "stats.js")
Json = dict[str, Any]


@dataclass(frozen=True)
class Read:
    """What a worker made of one bundle."""

    file: str
    rows: tuple[Json, ...] = ()
    keys: tuple[tuple[str, str], ...] = ()
    runs: tuple[tuple[str, RunRecord], ...] = ()  # (device, the run without its raw data)
    error: str | None = None


@dataclass
class Built:
    out: Path
    rows: list[Json] = field(default_factory=list)
    bad: list[str] = field(default_factory=list)  # "FILE: why"
    duplicates: list[str] = field(default_factory=list)
    devices: int = 0


def _slim(record: RunRecord) -> RunRecord:
    """The run as the trend reads it (analysis/trend.py): each trial, its status and its
    measurements, a flow's from its totals; without raw outputs, samples, findings and
    each flow's intervals and streams (which a worker need not send back and forth)."""
    return dataclasses.replace(
        record,
        outcomes=tuple(
            dataclasses.replace(o, raw=(), monitors=(), findings=(), result=_totals(o.result))
            for o in record.outcomes
        ),
    )


def _totals(result: Result | None) -> Result | None:
    if result is None:
        return None
    directions = tuple(dataclasses.replace(d, intervals=(), streams=()) for d in result.directions)
    return dataclasses.replace(result, directions=directions)


def _js(name: str, value: Any) -> str:
    """A data file a page loads with <script src> (from file:// too): a call with JSON."""
    text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    # "</script" never ends a script that is its own file, but keep JSON's slashes plain.
    return f"{name}({text});\n"


def _card_page(entry: Entry, record: RunRecord, report: Report, summary: CardSummary | None) -> str:
    from wirespeed.card.output import render_card
    from wirespeed.site.trends import with_nav

    if summary is not None:
        page = render_card("html", report, record, card=summary)
    else:
        from wirespeed.report.device_samples import device_samples
        from wirespeed.report.html import render_html

        page = render_html(report, device_samples(record))
    return with_nav(page, f"{entry.name} ({entry.file})", "..")


def read_one(directory: str, out: str, path: str) -> Read:
    """One bundle: checked whole, each run's card page and comparison data written, its
    index rows returned."""
    from wirespeed.card.compare import is_card_record
    from wirespeed.card.output import card_report
    from wirespeed.card.summary import card_summary
    from wirespeed.site.entry import describe

    where = Path(path)
    relative = where.relative_to(directory).as_posix()
    try:
        bundle, records = read_bundle(where, relative, "it is left out of the site")
    except UsageError as error:
        return Read(relative, error=error.message)
    rows, keys, runs = [], [], []
    for entry, record in zip(entries(bundle, relative), records, strict=True):
        report = card_report(record)
        summary = card_summary(report) if is_card_record(record) else None
        described = describe(entry, record, summary)
        (Path(out) / "cards" / f"{entry.page}.html").write_text(
            _card_page(entry, record, report, summary), encoding="utf-8"
        )
        (Path(out) / "data" / "cards" / f"{entry.page}.js").write_text(
            _js("wirespeedCard", described.compare), encoding="utf-8"
        )
        rows.append(described.row)
        keys += list(described.keys.items())
        runs.append((described.device, _slim(record)))
    return Read(relative, tuple(rows), tuple(keys), tuple(runs))


def build_site(
    directory: Path,
    out: Path,
    *,
    jobs: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Built:
    from wirespeed.site.pages import compare_page, index_page

    files = bundle_files(directory)
    if not files:
        raise UsageError(
            f"{directory}: no bundles (*.wsr) under it",
            hint="`wirespeed export RUN -o FILE.wsr` writes one; put it in the directory",
        )
    if out.resolve() == directory.resolve():
        raise UsageError("-o must name another directory than the results'")
    for sub in ("cards", "data/cards", "devices"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    built = Built(out)
    with _workers(jobs) as pool:
        reads = _read_all(directory, out, files, pool, progress)
        _trends(out, built, reads, pool)
    keys = {key: text for read in reads for key, text in read.keys}
    index = {"rows": built.rows, "keys": keys, "bundles": len(files), "bad": built.bad}
    (out / "data" / "index.js").write_text(_js("wirespeedIndex", index), encoding="utf-8")
    (out / "data" / "site.js").write_text(_js("wirespeedSite", _site_data()), encoding="utf-8")
    (out / "index.html").write_text(index_page(), encoding="utf-8")
    (out / "compare.html").write_text(compare_page(), encoding="utf-8")
    for name in ASSETS:
        text = (resources.files("wirespeed.site") / "assets" / name).read_text(encoding="utf-8")
        (out / name).write_text(text, encoding="utf-8")
    return built


def _trends(out: Path, built: Built, reads: Sequence[Read], pool: Workers | None) -> None:
    """The index's rows (each run once) in `built`, and each device's trend page of its
    runs written, what it says in its runs' rows."""
    by_device: dict[str, list[tuple[Json, RunRecord]]] = {}
    seen: dict[str, str] = {}
    for read in reads:
        if read.error is not None:
            built.bad.append(read.error)  # it names the file
            continue
        for row, (device, record) in zip(read.rows, read.runs, strict=True):
            if row["page"] in seen:
                # The same run in two bundles (an export of an import): shown once.
                built.duplicates.append(f"{read.file}: the run of {seen[row['page']]}")
                continue
            seen[row["page"]] = read.file
            built.rows.append(row)
            by_device.setdefault(device, []).append((row, record))
    several = [(device, runs) for device, runs in by_device.items() if len(runs) > 1]
    trends = _map(
        write_trend,
        [(str(out), device, [record for _, record in runs]) for device, runs in several],
        pool,
    )
    for (_, runs), said in zip(several, trends, strict=True):
        if said is None:
            continue
        built.devices += 1
        for row, _ in runs:
            row["trend"] = said


def _site_data() -> Json:
    """What the comparison page takes from wirespeed itself: the card's parts in order,
    a tuned card's stock variant and the legend `compare` prints."""
    from wirespeed.analysis.compare_many import DEFAULT_VARIANT
    from wirespeed.card.parts import PARTS
    from wirespeed.card.plan_text import STOCK
    from wirespeed.report.many_text import LEGEND

    return {
        "parts": [[part.key, part.title] for part in PARTS],
        "stock": STOCK,
        "default": DEFAULT_VARIANT,
        "legend": LEGEND,
    }


def write_trend(out: str, device: str, records: Sequence[RunRecord]) -> Json | None:
    """The device's trend page written; what the index says of it (None: no trend)."""
    from wirespeed.site.trends import device_trend, trend_page

    found = device_trend(device, records)
    if found is None:
        return None
    (Path(out) / found.page).write_text(trend_page(found, device), encoding="utf-8")
    return {"page": found.page, "said": found.said}


@dataclass(frozen=True)
class Workers:
    executor: Executor
    count: int


@contextmanager
def _workers(jobs: int | None) -> Iterator[Workers | None]:
    """One process a core (or `jobs`), for the bundles and then the trends; None: work in
    this process. What the workers run is imported before they start, so that each
    process (forked from this one) does not import it again."""
    workers = max(1, jobs or os.cpu_count() or 1)
    if workers == 1:
        yield None
        return
    import wirespeed.card.output
    import wirespeed.card.summary
    import wirespeed.report.html
    import wirespeed.site.entry
    import wirespeed.site.trends  # noqa: F401

    with ProcessPoolExecutor(max_workers=workers) as pool:
        yield Workers(pool, workers)


def _map(
    work: Callable[..., Any],
    args: Sequence[tuple[Any, ...]],
    pool: Workers | None,
    progress: Callable[[int, int], None] | None = None,
) -> list[Any]:
    """work(*arg) for each arg, in order: in this process, or in the pool's, in chunks
    (each process gets many at a time: what a task costs to send is shared)."""
    done: list[Any] = []
    if pool is None or len(args) <= 1:
        for arg in args:
            done.append(work(*arg))
            if progress:
                progress(len(done), len(args))
        return done
    chunk = max(1, min(32, len(args) // (pool.count * 8) or 1))
    for result in pool.executor.map(work, *zip(*args, strict=True), chunksize=chunk):
        done.append(result)
        if progress:
            progress(len(done), len(args))
    return done


def _read_all(
    directory: Path,
    out: Path,
    files: Sequence[Path],
    pool: Workers | None,
    progress: Callable[[int, int], None] | None,
) -> list[Read]:
    args = [(str(directory), str(out), str(path)) for path in files]
    return _map(read_one, args, pool, progress)
