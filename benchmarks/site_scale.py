"""The results site at scale: `wirespeed site` over N bundles (goal: 5,000 built in under
a minute on this machine), and the index page's time to interactive in headless Chromium
(goal: under 2 s): from the navigation's start to the table drawn with its handlers, as
`performance.now()` says it in the page; and how long a sort and a filter of the table
take there.

Besides the wall time, the build's CPU time (its processes', from getrusage): on a
machine shared with other work the wall time grows with the load, the CPU time does
not, and divided by the jobs it is what a quiet machine takes.

The bundles are clones of one real card (tests/fixtures/cards/runs.db.xz's run 1,
exported by `wirespeed export`), each given an identity of its own: a board and SoC
(one device per pair of bundles), a firmware label (two per device, so that each device
has a trend) and a start time; each clone's run id and the bundle's digest are made
again, as an export makes them. No root, no lab.

    uv run --frozen python -m benchmarks.site_scale [--bundles 5000] [--jobs 2]
"""

from __future__ import annotations

import argparse
import gzip
import json
import lzma
import os
import resource
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from benchmarks.common import emit

ROOT = Path(__file__).resolve().parents[1]
CARDS = ROOT / "tests" / "fixtures" / "cards" / "runs.db.xz"
WIRESPEED = [str(Path(sys.executable).with_name("wirespeed"))]


def _source_run(tmp: Path) -> dict[str, Any]:
    db = tmp / "cards.db"
    db.write_bytes(lzma.decompress(CARDS.read_bytes()))
    bundle = tmp / "card.wsr"
    subprocess.run(
        [*WIRESPEED, "export", "1", "-o", str(bundle), "--db", str(db)],
        check=True,
        capture_output=True,
    )
    document = json.loads(gzip.decompress(bundle.read_bytes()))
    (run,) = document["runs"]
    return run  # type: ignore[no-any-return]


_SOURCE: dict[str, Any] = {}


def _clone(arg: tuple[int, str, str]) -> None:
    """Bundle `index` of the set: device index // 2, firmware index % 2."""
    from wirespeed.store.bundle import canonical, digest, with_id

    index, text, directory = arg
    run = json.loads(text)
    device = index // 2
    firmware = ("23.05.2", "23.05.3")[index % 2]
    provenance = run["provenance"]
    provenance["labels"] = {"firmware": firmware}
    for facts in provenance.get("hosts", {}).values():
        if "dut" in str(facts.get("role") or ""):
            facts["machine"] = f"Board {device:04d}"
            identity = facts.setdefault("identity", {})
            identity["soc"] = f"SoC {device % 37:02d}"
    # The card's board, as its plan's x-card says what the device is.
    lines = run["plan_text"].splitlines()
    for number, line in enumerate(lines):
        if line.startswith("x-card:"):
            marker = json.loads(line.partition(":")[2])
            facts = [f for f in marker.get("facts") or () if not str(f).startswith("board ")]
            marker["facts"] = [f"board Board {device:04d}", *facts]
            lines[number] = "x-card: " + json.dumps(marker)
    run["plan_text"] = "\n".join(lines) + "\n"
    run["started_at"] = run["started_at"] + index * 60.0
    run["title"] = f"Device card: board {device:04d}, firmware {firmware}"
    run = with_id({k: v for k, v in run.items() if k != "id"})
    body = {
        "format": "wirespeed-bundle",
        "version": 1,
        "written_by": "wirespeed (benchmarks/site_scale.py)",
        "names": "pseudonyms",
        "runs": [run],
    }
    document = {**body, "digest": digest(body)}
    path = Path(directory) / f"board-{device:04d}" / f"{firmware}.wsr"
    path.parent.mkdir(parents=True, exist_ok=True)
    # Level 1: the benchmark's own time; any level reads the same.
    path.write_bytes(gzip.compress(canonical(document) + b"\n", compresslevel=1, mtime=0))


def _synthesise(count: int, directory: Path, run: dict[str, Any], jobs: int) -> float:
    started = time.monotonic()
    text = json.dumps(run)
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        list(pool.map(_clone, [(i, text, str(directory)) for i in range(count)], chunksize=16))
    return time.monotonic() - started


INTERACTIVE = "window.siteReadyAt"
SORT = """(function () {
  var t = performance.now();
  document.querySelector("th[data-key='TCP'] button").click();
  return performance.now() - t;
})()"""
FILTER = """(function () {
  var f = document.getElementById('filter'); f.value = 'Board %s';
  var t = performance.now();
  f.dispatchEvent(new Event('input'));
  return t;
})()"""


def _page_load(out: Path, repeat: int, board: int) -> dict[str, Any]:
    sys.path.insert(0, str(ROOT / "tests"))
    from browser.chromium_cdp import chromium, chromium_path

    executable = chromium_path()
    if executable is None:
        return {"error": "chromium is not installed"}
    interactive, sorts, filters = [], [], []
    with chromium(executable) as browser:
        for _ in range(repeat):
            page = browser.open((out / "index.html").as_uri(), width=1280)
            interactive.append(page.wait_for(INTERACTIVE, timeout=60) / 1000)
            sorts.append(page.evaluate(SORT) / 1000)
            began = page.evaluate(FILTER % f"{board:04d}")
            page.wait_for("document.getElementById('count').textContent.startsWith('2 of')")
            filters.append((page.evaluate("performance.now()") - began) / 1000)
    return {
        "interactive_s": [round(min(interactive), 3), round(max(interactive), 3)],
        "sort_by_tcp_s": [round(min(sorts), 3), round(max(sorts), 3)],
        "filter_s_including_80ms_debounce": [round(min(filters), 3), round(max(filters), 3)],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundles", type=int, default=5000)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--repeat", type=int, default=3, help="page loads measured")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        results, out = tmp / "results", tmp / "public"
        made = _synthesise(args.bundles, results, _source_run(tmp), args.jobs)
        started = time.monotonic()
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        built = subprocess.run(
            [*WIRESPEED, "site", str(results), "-o", str(out), "--jobs", str(args.jobs)],
            capture_output=True,
            text=True,
            check=False,
        )
        seconds = time.monotonic() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        if built.returncode != 0:
            raise SystemExit(built.stderr)
        index = (out / "data" / "index.js").stat().st_size
        emit(
            "site_scale",
            {
                "bundles": args.bundles,
                "jobs": args.jobs,
                "synthesised_s": round(made, 1),
                "build_s": round(seconds, 1),
                # The build's processes' CPU time: on a machine shared with other work
                # the wall time grows, this does not; over the cores, the quiet machine's.
                "build_cpu_s": round(cpu, 1),
                "build_cpu_s_per_core": round(cpu / args.jobs, 1),
                "load_average_1min_after": round(os.getloadavg()[0], 2),
                "goal_build_s": 60,
                "index_data_bytes": index,
                "page": _page_load(out, args.repeat, min(42, args.bundles // 2 - 1)),
                "goal_interactive_s": 2,
            },
        )


if __name__ == "__main__":
    main()
