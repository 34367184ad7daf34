"""Mutation testing of the core logic: how many deliberate small bugs in each module its
own unit tests catch (mutmut 3: a mutant flips an operator, a constant, a condition or a
return value; it is "killed" when a test fails, it "survived" when every test passes).

Each module is run against its own unit tests only (MODULES), so a score says what those
tests guard, and a run stays short on a shared machine: one mutant at a time, in a
scratch copy of src/ and tests/ (the working tree is never mutated). mutmut and its
dependencies (libcst, textual, ...) go into a throwaway virtualenv made for the run and
removed after it, which also sees this project's .venv: they are not the project's
dependencies and the lock file stays as it is. Not part of CI: about 2-4 minutes a
module on 2 busy cores.

    nice -n 15 .venv/bin/python -m benchmarks.mutation [--module search/bounds.py ...]
        [--survivors FILE] [--keep DIR] [--venv DIR] [--fast] [--limit MINUTES]

Prints one JSON summary (per module: mutants, killed, survived, timeouts, score) and, with
--survivors, writes every surviving mutant's diff to FILE, to be killed by a new test or
explained as equivalent (docs/benchmarks.md, "Mutation testing").
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

from benchmarks.common import emit

ROOT = Path(__file__).resolve().parent.parent
MUTMUT = "mutmut==3.8.1"
# Each module of src/wirespeed and the unit tests that are its own.
MODULES: dict[str, tuple[str, ...]] = {
    "search/mlrsearch.py": ("tests/unit/search/test_mlrsearch.py",),
    "search/bounds.py": ("tests/unit/search/test_search_bounds.py",),
    "search/phases.py": ("tests/unit/search/test_search_bounds.py",),
    "analysis/ceiling.py": (
        "tests/unit/analysis/test_ceiling.py",
        "tests/unit/analysis/test_stream_sums_ceiling.py",
    ),
    "analysis/link_ceiling.py": (
        "tests/unit/analysis/test_ceiling.py",
        "tests/unit/analysis/test_stream_sums_ceiling.py",
    ),
    "analysis/latency.py": ("tests/unit/latency/test_latency_figures.py",),
    "analysis/stats.py": ("tests/unit/analysis/test_stats.py",),
    "analysis/group_tests.py": ("tests/unit/analysis/test_group_tests.py",),
    "soak/outages.py": ("tests/unit/soak/test_outages.py",),
    "tune/journal.py": ("tests/unit/tune/test_tune_apply.py",),
    "card/summary.py": (
        "tests/unit/card/test_card_summary.py",
        "tests/unit/card/test_card_tuned.py",
        "tests/unit/card/test_card_above_ceiling.py",
    ),
    "card/read_across.py": ("tests/unit/card/test_card_summary.py",),
    "analysis/expectations.py": (
        "tests/unit/analysis/test_expectations.py",
        "tests/unit/report/test_report_expectations.py",
        "tests/unit/report/test_report_measured_expectations.py",
        "tests/unit/soak/test_soak_expect.py",
    ),
    "analysis/compare_many.py": (
        "tests/unit/analysis/test_compare_many.py",
        "tests/unit/analysis/test_compare.py",
        "tests/unit/analysis/test_compare_latency.py",
    ),
    "soak/device.py": ("tests/unit/soak/test_device.py",),
    "soak/faults.py": ("tests/unit/soak/test_faults.py",),
    "run/wire_span.py": ("tests/unit/run/test_wire_span.py",),
    "run/search_legs.py": (
        "tests/unit/run/test_search_legs.py",
        "tests/unit/run/test_search_trial_checks.py",
        "tests/unit/run/test_search_generators.py",
    ),
    "tune/ports.py": (
        "tests/unit/tune/test_port_state.py",
        "tests/unit/tune/test_tunnel_undo.py",
        "tests/unit/tune/test_port_mover.py",
    ),
    "tune/port_restore.py": ("tests/unit/tune/test_port_mover.py",),
    "tune/keep_script.py": ("tests/unit/tune/test_tune_keep.py",),
    "units.py": ("tests/unit/units/test_units.py", "tests/unit/latency/test_lab_queue.py"),
}
# Data files a module's tests read from outside their own directories (copied with them).
TEST_DATA: dict[str, tuple[str, ...]] = {
    "card/summary.py": ("tests/unit/sampling/summary-v1-r4s.json",),  # a DUT's samples
    "card/read_across.py": ("tests/unit/sampling/summary-v1-r4s.json",),
}
TIMEOUT = 1800.0  # seconds for one module's whole run, unless --limit says otherwise


def make_venv(where: Path) -> Path:
    """A virtualenv with mutmut that also imports everything this interpreter has (the
    project, pytest's plugins, hypothesis): a .pth line adds this site-packages after
    its own."""
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True)
    python = where / "bin" / "python"
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", MUTMUT],
        check=True,
    )
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    ours = sysconfig.get_paths()["purelib"]
    line = f"import site; site.addsitedir({ours!r})\n"
    (Path(purelib) / "zz_wirespeed_project.pth").write_text(line)
    return where / "bin" / "mutmut"


def scratch_copy(module: str, tests: tuple[str, ...], into: Path, *, fast: bool = False) -> None:
    """src/, the tests' own directories and tests/support, pyproject.toml (pytest's
    settings) and the module's mutmut settings. The fixtures are placed in mutmut's
    copy directly, symlinks kept: mutmut copies tests/ following links, and the board
    trees' sysfs links go round in circles."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "src", into / "src", ignore=ignore)
    for directory in {"tests/support", *(str(Path(test).parent) for test in tests)}:
        shutil.copytree(ROOT / directory, into / directory, ignore=ignore, dirs_exist_ok=True)
    for data in TEST_DATA.get(module, ()):
        (into / data).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / data, into / data)
    shutil.copy2(ROOT / "pyproject.toml", into / "pyproject.toml")
    shutil.copytree(ROOT / "tests/fixtures", into / "mutants/tests/fixtures", symlinks=True)
    # pyproject.toml has no [tool.mutmut], so mutmut reads setup.cfg.
    selection = "\n    ".join(tests)
    (into / "setup.cfg").write_text(
        "[mutmut]\n"
        "source_paths = src\n"
        f"only_mutate = src/wirespeed/{module}\n"
        f"pytest_add_cli_args_test_selection =\n    {selection}\n"
        f"pytest_add_cli_args = -p no:cacheprovider{' --fast' if fast else ''}\n"
    )


def run_module(
    mutmut: Path,
    module: str,
    tests: tuple[str, ...],
    into: Path,
    *,
    fast: bool = False,
    limit: float = TIMEOUT,
) -> dict[str, object]:
    scratch_copy(module, tests, into, fast=fast)
    started = time.monotonic()
    done = subprocess.run(
        [str(mutmut), "run", "--max-children", "1"],
        cwd=into,
        check=False,  # its failure is said below with mutmut's own output
        capture_output=True,
        text=True,
        timeout=limit,
    )
    seconds = time.monotonic() - started
    if done.returncode != 0:
        tail = (done.stdout + done.stderr)[-2000:]
        raise RuntimeError(f"mutmut run failed on {module} ({done.returncode}):\n{tail}")
    subprocess.run([str(mutmut), "export-cicd-stats"], cwd=into, check=True, capture_output=True)
    stats = json.loads((into / "mutants" / "mutmut-cicd-stats.json").read_text())
    listed = subprocess.run(
        [str(mutmut), "results"], cwd=into, check=True, capture_output=True, text=True
    ).stdout
    survivors = [line.split(":")[0].strip() for line in listed.splitlines() if ": survived" in line]
    # A mutant no selected test reaches is as uncaught as one that survived them.
    counted = stats["total"] - stats["skipped"]
    return {
        "mutants": stats["total"],
        "killed": stats["killed"],
        "survived": stats["survived"],
        "timeout": stats["timeout"],  # a mutant that loops forever counts as caught
        "no_tests": stats["no_tests"],  # no test of the selection runs its code
        "score_pct": round(100.0 * (stats["killed"] + stats["timeout"]) / counted, 1)
        if counted
        else None,
        "seconds": round(seconds),
        "survivors": survivors,
    }


def diffs(mutmut: Path, into: Path, names: list[str]) -> str:
    shown = []
    for name in names:
        done = subprocess.run(
            [str(mutmut), "show", name], cwd=into, check=True, capture_output=True, text=True
        )
        shown.append(f"# {name}\n{done.stdout.strip()}\n")
    return "\n".join(shown)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--module", action="append", choices=sorted(MODULES), help="only these (repeatable)"
    )
    parser.add_argument("--survivors", type=Path, help="write the surviving mutants' diffs here")
    parser.add_argument("--keep", type=Path, help="keep the scratch copies in this directory")
    parser.add_argument(
        "--fast",
        action="store_true",
        help="only the tests of the fast loop (pytest --fast): a module whose own tests "
        "wait for threads and programs runs in a fraction of the time, and a mutant "
        "only a test that starts a program would catch counts as surviving",
    )
    parser.add_argument(
        "--venv",
        type=Path,
        help="the virtualenv with mutmut: made there if missing, kept after (a run of a "
        "module or two then skips the install)",
    )
    parser.add_argument(
        "--limit",
        type=float,
        default=TIMEOUT / 60,
        metavar="MINUTES",
        help=f"give up on a module whose run takes longer (default {TIMEOUT / 60:.0f}; "
        "card/summary.py's 1296 mutants take about an hour on 2 busy cores)",
    )
    args = parser.parse_args()
    if args.limit <= 0:
        parser.error("--limit must be a positive number of minutes")
    modules = args.module or list(MODULES)
    results: dict[str, dict[str, object]] = {}
    shown: list[str] = []
    with tempfile.TemporaryDirectory(prefix="wirespeed-mutation-") as tmp:
        work = args.keep or Path(tmp)
        venv = args.venv or Path(tmp) / "venv"
        mutmut = venv / "bin" / "mutmut"
        if not mutmut.exists():
            mutmut = make_venv(venv)
        for module in modules:
            into = work / module.replace("/", "-").removesuffix(".py")
            if into.exists():
                shutil.rmtree(into)
            result = run_module(
                mutmut, module, MODULES[module], into, fast=args.fast, limit=args.limit * 60
            )
            survivors = result.pop("survivors")
            assert isinstance(survivors, list)
            if args.survivors is not None:  # `mutmut show` takes seconds a mutant
                shown.append(f"## {module}\n\n{diffs(mutmut, into, survivors)}")
            results[module] = result
            print(f"{module}: {json.dumps(result)}", file=sys.stderr, flush=True)
    if args.survivors is not None:
        args.survivors.write_text("\n".join(shown))
    emit("mutation", {"tool": MUTMUT, "modules": results})
    return 0


if __name__ == "__main__":
    sys.exit(main())
