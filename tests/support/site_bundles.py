"""Bundles for the site's tests, each written by `wirespeed export`: the two real lab
cards of tests/fixtures/cards/runs.db.xz and the tuned card of tuned.db.xz; the R4S's
openssl runs of support/trend_samples.py under firmware labels."""

from __future__ import annotations

import lzma
from collections.abc import Sequence
from pathlib import Path

from support.cli import run_cli
from support.samples import store_runs
from support.trend_samples import labelled

CARDS = Path(__file__).resolve().parents[1] / "fixtures" / "cards"


def export(db: Path, run: int, bundle: Path, *options: str) -> Path:
    bundle.parent.mkdir(parents=True, exist_ok=True)
    done = run_cli("export", str(run), "-o", str(bundle), "--db", str(db), *options)
    assert done.status == 0, done.err
    return bundle


def card_bundles(directory: Path, tmp_path: Path) -> list[Path]:
    """cards/fe-15k.wsr, cards/fe-30k.wsr and cards/tuned.wsr."""
    made = []
    sources = (("runs.db.xz", ((1, "fe-15k"), (2, "fe-30k"))), ("tuned.db.xz", ((1, "tuned"),)))
    for source, runs in sources:
        db = tmp_path / source.removesuffix(".xz")
        db.write_bytes(lzma.decompress((CARDS / source).read_bytes()))
        for run, name in runs:
            made.append(export(db, run, directory / "cards" / f"{name}.wsr"))
    return made


# Two runs under 23.05.0, then two 10 % slower under 23.05.3.
LEVELS: Sequence[tuple[str, float]] = (
    ("23.05.0", 1.0),
    ("23.05.0", 1.004),
    ("23.05.3", 0.9),
    ("23.05.3", 0.903),
)


def firmware_bundles(directory: Path, tmp_path: Path) -> list[Path]:
    """r4s/1.wsr ... r4s/4.wsr: one run each, in the order they ran."""
    db = tmp_path / "r4s.db"
    runs = [labelled(i + 1, firmware, level) for i, (firmware, level) in enumerate(LEVELS)]
    ids = store_runs(db, *runs)
    return [export(db, run, directory / "r4s" / f"{n}.wsr") for n, run in enumerate(ids, 1)]
