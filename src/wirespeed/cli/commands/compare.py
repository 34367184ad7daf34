"""`wirespeed compare [A B ...]`: runs as columns of one table (two runs are two columns),
or two paths or variants of one run; with --soaks, two soaks or more."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from wirespeed.cli.env import Environment
from wirespeed.cli.exit import ExitStatus
from wirespeed.cli.outputs import OutputTarget, output_targets, write_targets
from wirespeed.errors import UsageError

if TYPE_CHECKING:
    from wirespeed.analysis.compare_many import ManyComparison, RunColumn
    from wirespeed.card.compare import CardComparison
    from wirespeed.report.budgets import Budget
    from wirespeed.report.document import Document
    from wirespeed.store import Store
    from wirespeed.store.bundle import Bundle
    from wirespeed.store.records import RunRecord

FORMATS = ("terminal", "markdown", "csv", "json", "html")


def _latest_two(store: Store) -> list[int]:
    runs = store.list_runs()
    if len(runs) < 2:
        raise UsageError(
            f"compare needs two runs, the store has {len(runs)}",
            hint="make another with `wirespeed run PLAN`, or compare two paths of one run "
            "with --paths A B",
        )
    return [runs[-2].id, runs[-1].id]


def _within(args: argparse.Namespace, store: Store) -> ManyComparison | None:
    """`--paths A B` or `--variants A B` of one run; None without either."""
    from wirespeed.analysis.compare_within import compare_paths, compare_variants

    runs: list[int] = list(args.runs or [])
    paths: list[str] | None = getattr(args, "paths", None)
    variants: list[str] | None = getattr(args, "variants", None)
    if paths and variants:
        raise UsageError("give --paths or --variants, not both")
    if not (paths or variants):
        return None
    if len(runs) > 1:
        raise UsageError(
            f"--{'paths' if paths else 'variants'} compares within one run, got {len(runs)}",
            hint="give one run id, or none for the latest run",
        )
    # Compare shows neither interval series nor raw outputs.
    record = store.load_run(
        runs[0] if runs else None, intervals=False, outputs=False, commands=False
    )
    if paths:
        return compare_paths(record, paths[0], paths[1])
    assert variants is not None
    return compare_variants(record, variants[0], variants[1])


def _comparison(args: argparse.Namespace, store: Store) -> ManyComparison:
    from wirespeed.analysis.compare_many import compare_many

    within = _within(args, store)
    if within is not None:
        return within
    runs: list[int] = list(args.runs or [])
    if len(runs) == 1:
        raise UsageError(
            "compare needs two runs, or one run with --paths A B or --variants A B",
            hint=f"e.g. `wirespeed compare {runs[0]} OTHER` or "
            f"`wirespeed compare {runs[0]} --paths WAN Br0`",
        )
    ids = runs or _latest_two(store)
    if len(ids) > 2 and len(set(ids)) != len(ids):
        # Two runs may be one (a run against itself: every ratio 1); a table's columns not.
        raise UsageError("a run is given twice", hint="give each run once")
    records = [store.load_run(run, intervals=False, outputs=False, commands=False) for run in ids]
    return compare_many(records)


def render_table(fmt: str, comparison: ManyComparison, budgets: tuple[Budget, ...] = ()) -> str:
    """A table of runs (or soaks) in a format; the terminal's as plain text."""
    from wirespeed.cli.document_output import document_text
    from wirespeed.report.many_document import comparison_document

    return document_text(comparison_document(comparison, budgets), fmt)


def show_table(
    comparison: ManyComparison,
    targets: list[OutputTarget],
    fmt: str | None,
    env: Environment,
    budgets: tuple[Budget, ...] = (),
) -> int:
    """A table of runs (or soaks), built once as a document, to each -o file, else to
    stdout in `fmt`."""
    from wirespeed.report.many_document import comparison_document

    return _show(comparison_document(comparison, budgets), targets, fmt, env)


def _show(
    document: Document, targets: list[OutputTarget], fmt: str | None, env: Environment
) -> int:
    """A comparison's document to each -o file, else to stdout in `fmt`."""
    from wirespeed.cli.document_output import document_text, show_document

    if not targets:
        show_document(document, fmt or "terminal", env)
    else:
        write_targets(targets, lambda fmt: document_text(document, fmt), env.info)
    return ExitStatus.OK


def _soaks(args: argparse.Namespace, store: Store) -> ManyComparison:
    """`--soaks [A B ...]`: the ids are soaks' (`wirespeed soak --report`), compared as
    `wirespeed soak --compare` does."""
    from wirespeed.soak.comparison import compare_soaks, soaks_to_compare

    if getattr(args, "paths", None) or getattr(args, "variants", None):
        raise UsageError("--soaks compares whole soaks: leave out --paths and --variants")
    return compare_soaks(soaks_to_compare(store, list(args.runs or []), threshold=None))


def execute(args: argparse.Namespace, env: Environment) -> int:
    from wirespeed.report.budgets import parse_budgets
    from wirespeed.store import Store

    budgets = parse_budgets(getattr(args, "budgets", None))  # a bad one: exit 2 at once
    fmt: str | None = getattr(args, "format", None)
    targets = output_targets(getattr(args, "output", None), fmt, FORMATS, "compare")
    if getattr(args, "store", None) or any(isinstance(r, str) for r in args.runs or ()):
        return _across(args, env, targets, fmt, budgets)
    store = Store.open(args.db, read_only=True)
    try:
        soaks = getattr(args, "soaks", False)
        cards = None if soaks else _cards_as_tables(args, store)
        if cards is None:
            table = _soaks(args, store) if soaks else _comparison(args, store)
    finally:
        store.close()
    if cards is not None:
        return _show_cards(cards, targets, fmt, env, budgets)
    return show_table(table, targets, fmt, env, budgets)


def _cards_as_tables(args: argparse.Namespace, store: Store) -> CardComparison | None:
    """Device cards side by side (a table per part), when every run compared is a card;
    None otherwise."""
    from wirespeed.card.compare import compare_cards, is_card_record

    runs: list[int] = list(args.runs or [])
    if getattr(args, "paths", None) or getattr(args, "variants", None) or len(runs) == 1:
        return None
    ids = runs or list(_latest_two(store))
    if len(ids) > 2 and len(set(ids)) != len(ids):
        raise UsageError("a run is given twice", hint="give each run once")
    records = [store.load_run(run, intervals=False, outputs=False, commands=False) for run in ids]
    if not all(is_card_record(record) for record in records):
        return None
    return compare_cards(records)


def _show_cards(
    cards: CardComparison,
    targets: list[OutputTarget],
    fmt: str | None,
    env: Environment,
    budgets: tuple[Budget, ...],
) -> int:
    from wirespeed.card.compare import cards_result

    if budgets:
        raise UsageError(
            "--as says goodput as an application's needs; each card says what its device "
            "is good for",
            hint="leave --as out",
        )
    return _show(cards_result(cards), targets, fmt, env)


def _across(
    args: argparse.Namespace,
    env: Environment,
    targets: list[OutputTarget],
    fmt: str | None,
    budgets: tuple[Budget, ...],
) -> int:
    """Runs of other stores (--store) and bundles (FILE) beside runs of --db: one table,
    each figure beside the first column's only where they share a comparison key, with
    how the devices' configurations differ and each column's verdict."""
    import dataclasses

    from wirespeed.analysis.compare_many import compare_many
    from wirespeed.analysis.comparison_key import configuration_differences
    from wirespeed.analysis.validity import run_verdict
    from wirespeed.card.compare import compare_cards, is_card_record

    for option in ("paths", "variants"):
        if getattr(args, option, None):
            raise UsageError(
                f"--{option} compares within one run of --db; leave out bundles and --store"
            )
    if getattr(args, "soaks", False):
        raise UsageError("--soaks compares soaks of --db; leave out bundles and --store")
    records, names = _gathered(args)
    if len(records) < 2:
        raise UsageError(
            f"compare needs two runs, got {len(records)}",
            hint="give another bundle, --store DB or run id",
        )
    notes = list(configuration_differences(records))
    for name, record in zip(names, records, strict=True):
        # The gates that closed; the bundle, and the findings `report` shows, say why.
        notes.append(f"{name}: {run_verdict(record).short}")

    def named(columns: tuple[RunColumn, ...]) -> tuple[RunColumn, ...]:
        # "run 3: R4S · Linux 5.10" becomes "r4s.wsr: R4S · Linux 5.10".
        return tuple(
            dataclasses.replace(
                column,
                name=name,
                label=name + column.label.partition(":")[1] + column.label.partition(":")[2],
            )
            for column, name in zip(columns, names, strict=True)
        )

    if all(is_card_record(record) for record in records):
        cards = compare_cards(records, strict=True)
        whole = dataclasses.replace(
            cards.whole, columns=named(cards.whole.columns), notes=tuple(notes)
        )
        cards = dataclasses.replace(cards, columns=whole.columns, whole=whole)
        return _show_cards(cards, targets, fmt, env, budgets)
    table = compare_many(records, strict=True)
    table = dataclasses.replace(table, columns=named(table.columns), notes=tuple(notes))
    return show_table(table, targets, fmt, env, budgets)


def _gathered(args: argparse.Namespace) -> tuple[list[RunRecord], list[str]]:
    """The runs to compare and their columns' names: each --store's, then the RUNs (of
    --db) and bundles in the order given."""
    from pathlib import Path

    from wirespeed.store import Store

    records: list[RunRecord] = []
    names: list[str] = []
    for given in getattr(args, "store", None) or ():
        where, mark, number = given.rpartition("#")
        if not mark or not number.isdigit():
            where, number = given, ""
        store = Store.open(where, read_only=True)
        try:
            run = int(number) if number else None
            record = store.load_run(run, intervals=False, outputs=False, commands=False)
            shown = Path(store.where).name if "://" not in store.where else store.where
        finally:
            store.close()
        records.append(record)
        names.append(f"{shown} run {record.id}")
    ids = [r for r in args.runs or () if isinstance(r, int)]
    from_db: dict[int, RunRecord] = {}
    if ids:
        store = Store.open(args.db, read_only=True)
        try:
            for run in ids:
                from_db[run] = store.load_run(run, intervals=False, outputs=False, commands=False)
        finally:
            store.close()
    for given in args.runs or ():
        if isinstance(given, int):
            records.append(from_db[given])
            names.append(f"run {given}")
            continue
        bundle = _bundle(given)
        runs = bundle.records()
        for number, record in enumerate(runs, start=1):
            records.append(record)
            names.append(Path(given).name + (f" #{number}" if len(runs) > 1 else ""))
    return records, names


def _bundle(name: str) -> Bundle:
    from pathlib import Path

    from wirespeed.store.bundle import unpack

    try:
        data = Path(name).read_bytes()
    except OSError as error:
        raise UsageError(
            f"{name}: not a run id, and no bundle to read ({error.strerror or error})",
            hint="give run ids (`wirespeed runs`) or bundles written by `wirespeed export`",
        ) from None
    return unpack(data, name, nothing="nothing was compared")
