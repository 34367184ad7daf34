"""`wirespeed site DIR [-o OUT]`: a static site of every bundle under DIR; `wirespeed site
--check DIR`: whether each bundle may join it (a results repository's CI gate)."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from wirespeed.cli.env import Environment
from wirespeed.cli.exit import ExitStatus
from wirespeed.cli.options import add_flag
from wirespeed.errors import UsageError


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    site = sub.add_parser(
        "site",
        help="a static site of many bundles: devices' cards, compared and trended",
        description="Reads every bundle (*.wsr) under DIR, a results repository anyone "
        "contributes to, and writes a static site to OUT: a table of every device card "
        "(board, SoC, firmware, link, the card's headline figures, its verdict), sorted "
        "and filtered in the page, each figure ranked only beside figures of its "
        "comparison key; each card's page; a comparison of the cards chosen in the table "
        "(the figures of `wirespeed compare FILE...`); and each device's figures over its "
        "firmware labels with the verdicts of `wirespeed trend --by firmware`. No server, "
        "nothing fetched: it opens from file:// and publishes as it is (docs/sharing.md). "
        "--check validates the bundles instead and exits 1 naming each bad one.",
    )
    site.add_argument("directory", metavar="DIR", help="the directory of bundles (searched deep)")
    site.add_argument(
        "-o",
        "--output",
        metavar="OUT",
        help="the site's directory (default: DIR/site); made if missing, its files replaced",
    )
    add_flag(
        site,
        "--check",
        help="check every bundle instead: whole and unedited (format version, digest), "
        "names as pseudonyms with nothing personal left, its verdict the one its trials "
        "give and valid to compare; exit 1 naming each bad file",
    )
    add_flag(
        site,
        "--allow-invalid",
        help="with --check: accept runs not valid to compare (measured once, lab-limited "
        "...), saying which; the site shows each run's verdict",
    )
    site.add_argument(
        "-j",
        "--jobs",
        type=int,
        metavar="N",
        help="bundles read at once (default: one per core)",
    )
    return site


def execute(args: argparse.Namespace, env: Environment) -> int:
    directory = Path(args.directory)
    if args.jobs is not None and args.jobs < 1:
        raise UsageError(f"--jobs must be 1 or more, got {args.jobs}")
    if args.check:
        if args.output:
            raise UsageError("--check writes nothing: leave out -o")
        return _check(directory, args.allow_invalid, env)
    if args.allow_invalid:
        raise UsageError(
            "--allow-invalid goes with --check: the site shows every run with its verdict"
        )
    return _build(directory, Path(args.output) if args.output else directory / "site", args, env)


def _check(directory: Path, allow_invalid: bool, env: Environment) -> int:
    from wirespeed.site.check import check_bundle
    from wirespeed.site.gather import bundle_files

    files = bundle_files(directory)
    if not files:
        raise UsageError(
            f"{directory}: no bundles (*.wsr) under it",
            hint="`wirespeed export RUN -o FILE.wsr` writes one",
        )
    bad = 0
    for path in files:
        checked = check_bundle(
            path, path.relative_to(directory).as_posix(), allow_invalid=allow_invalid
        )
        for line in checked.invalid:
            env.warn(f"{checked.file}: {line} (accepted: --allow-invalid)")
        if not checked.ok:
            bad += 1
            for problem in checked.problems:
                env.stdout.write(f"{checked.file}: {problem}\n")
    said = (
        f"{len(files)} bundles checked, {bad} bad"
        if bad
        else f"{len(files)} bundles checked, all good"
    )
    if bad:
        env.error(said)
        return ExitStatus.FAILED
    env.info(said)
    return ExitStatus.OK


def _build(directory: Path, out: Path, args: argparse.Namespace, env: Environment) -> int:
    from wirespeed.site.build import build_site

    started = time.monotonic()
    shown = [0.0]

    def progress(done: int, total: int) -> None:
        now = time.monotonic()
        if done == total or now - shown[0] >= 2.0:
            shown[0] = now
            env.info(f"read {done} of {total} bundles")

    built = build_site(directory, out, jobs=args.jobs, progress=progress)
    for line in built.bad:
        env.error(f"left out: {line}")
    for line in built.duplicates:
        env.warn(f"shown once: {line}")
    env.info(
        f"site of {len(built.rows)} runs ({built.devices} devices with a trend) written to "
        f"{out} in {time.monotonic() - started:.1f} s; open {out / 'index.html'}"
    )
    return ExitStatus.FAILED if built.bad else ExitStatus.OK
