"""The bundles of a results directory: every `.wsr` under it, in the order of their paths,
each run of each one a site's entry."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wirespeed.errors import UsageError
from wirespeed.site.whole import read_whole
from wirespeed.store.bundle import SUFFIX, Bundle, unpack
from wirespeed.store.records import RunRecord


def bundle_files(directory: Path) -> list[Path]:
    """Every bundle under `directory`, sorted by path; hidden directories (.git) left out."""
    if not directory.is_dir():
        raise UsageError(
            f"{directory}: not a directory",
            hint="give the directory of a results repository, which holds bundles (*.wsr)",
        )
    found = [
        path
        for path in directory.rglob(f"*{SUFFIX}")
        if path.is_file()
        and not any(part.startswith(".") for part in path.relative_to(directory).parts[:-1])
    ]
    return sorted(found, key=lambda p: p.relative_to(directory).as_posix())


def read_bundle(path: Path, shown: str, nothing: str) -> tuple[Bundle, tuple[RunRecord, ...]]:
    """The bundle at `path`, checked whole as store/bundle.py checks it, and its runs as
    RunRecords (numbered 1, 2 ...): a BundleError says why not."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise UsageError(f"{shown}: cannot be read ({error.strerror or error})") from None
    read = read_whole(data, shown)
    if read is not None:
        return read
    # Not whole, or not as this reader expects it: unpack says what is wrong, or reads it.
    bundle = unpack(data, shown, nothing=nothing)
    return bundle, tuple(bundle.records())


@dataclass(frozen=True)
class Entry:
    """One run of one bundle: what the site calls a card (or a run that is not one)."""

    page: str  # the run's pages' name: the start of its id (a digest of its content)
    file: str  # the bundle, relative to the results directory
    name: str  # a column's name in `compare`: the file's name, "#n" where it holds several
    run: dict[str, Any]


def page_of(run_id: str) -> str:
    """A short, stable file name for a run: 16 hex digits of its content's digest."""
    digest = run_id.removeprefix("sha256:")
    if len(digest) < 16:
        digest = hashlib.sha256(run_id.encode()).hexdigest()
    return digest[:16]


def entries(bundle: Bundle, relative: str) -> Iterator[Entry]:
    several = len(bundle.runs) > 1
    for number, run in enumerate(bundle.runs, start=1):
        name = Path(relative).name + (f" #{number}" if several else "")
        yield Entry(page_of(str(run["id"])), relative, name, run)
