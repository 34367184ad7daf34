"""Compute benchmarks: does wirespeed report what `openssl speed` and `7z b` say by hand?

Runs `wirespeed run examples/compute.yaml` (openssl AES-128/256-CBC at 1 KB and 8 KB with
and without -evp, 7-zip MIPS on one thread and all, on the lab DUT), then each command it
ran, by hand on this machine right after, and compares each figure's median over the
rounds: the goal is within 3 %. Rounds interleave (wirespeed once, by hand once, and again):
this machine's speed drifts by several % over minutes (a VM's neighbours), and a drift
must land on both sides, not on whichever ran second. `--together` runs
`wirespeed run --repeat N` first and then N rounds by hand instead. The by-hand outputs
are read with regular expressions of their own here, not wirespeed's parsers. Needs root.

    sudo .venv/bin/python -m benchmarks.compute_vs_by_hand [--repeat 3] [--together]
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

from benchmarks.common import emit
from wirespeed.analysis.group_tests import permutation_test
from wirespeed.analysis.stats import ALPHA
from wirespeed.model import Tool
from wirespeed.store import Store
from wirespeed.store.records import RunRecord

PLAN = Path(__file__).parents[1] / "examples" / "compute.yaml"
GOAL = 3.0  # % either way
_OPENSSL_ROW = re.compile(r"^(?P<cipher>aes-\d+-cbc|AES-\d+-CBC)\s+(?P<figures>[0-9.k ]+)$", re.M)
_OPENSSL_SIZES = re.compile(r"^type\s+(?P<sizes>.*)$", re.M)
_SEVENZIP = {
    "compress": re.compile(r"^Avr:\s+\d+\s+\d+\s+\d+\s+(?P<mips>\d+)\s+\|", re.M),
    "decompress": re.compile(r"^Avr:.*\|\s+\d+\s+\d+\s+\d+\s+(?P<mips>\d+)\s*$", re.M),
    "total": re.compile(r"^Tot:\s+\d+\s+\d+\s+(?P<mips>\d+)\s*$", re.M),
}


def by_hand_openssl(text: str) -> dict[tuple[str, str], float]:
    """{(cipher upper-cased, "1 KB"): B/s} of an `openssl speed -bytes N` table."""
    sizes = _OPENSSL_SIZES.search(text)
    assert sizes is not None, text
    size = int(sizes["sizes"].split()[0])
    block = f"{size // 1024} KB"
    found = {}
    for row in _OPENSSL_ROW.finditer(text):
        figure = row["figures"].split()[0]
        found[(row["cipher"].upper(), block)] = float(figure.rstrip("k")) * 1000
    return found


def by_hand_7zip(text: str) -> dict[str, float]:
    found = {}
    for name, pattern in _SEVENZIP.items():
        matches = list(pattern.finditer(text))
        assert matches, (name, text)
        found[name] = float(matches[-1]["mips"])
    return found


def _wirespeed(plan: Path, db: Path, repeat: int) -> list[RunRecord]:
    command = [sys.executable, "-m", "wirespeed.cli.app", "run", str(plan)]
    command += ["--repeat", str(repeat), "--db", str(db), "--lab-name", "bcompute", "-q"]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    with Store.open(str(db), read_only=True) as store:
        return [store.load_run(None)]


def _ours(records: list[RunRecord]) -> tuple[dict[str, list[float]], list[tuple[str, ...]]]:
    """wirespeed's figures by item, and the commands it ran (tool first)."""
    ours: dict[str, list[float]] = defaultdict(list)
    commands: dict[tuple[str, ...], None] = {}
    for record in records:
        for outcome in record.outcomes:
            assert outcome.result is not None, outcome.reason
            for m in outcome.result.measurements:
                ours[f"{outcome.trial.test.tool}: {m.item}"].append(m.value)
            for raw in outcome.raw:
                commands.setdefault((str(outcome.trial.test.tool), *raw.argv), None)
    return ours, list(commands)


def _by_hand(commands: list[tuple[str, ...]], hand: dict[str, list[float]]) -> None:
    for tool, *argv in commands:
        text = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
        if tool == Tool.OPENSSL:
            api = "EVP" if "-evp" in argv else "no EVP"
            for (cipher, block), value in by_hand_openssl(text).items():
                hand[f"openssl: {cipher} {block}, {api}"].append(value)
        else:
            threads = next(a for a in argv if a.startswith("-mmt"))[4:]
            label = "1 thread" if threads == "1" else "all threads"
            for name, value in by_hand_7zip(text).items():
                hand[f"7zip: {name} {label}"].append(value)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--plan", type=Path, default=PLAN)
    parser.add_argument("--together", action="store_true")
    args = parser.parse_args()
    hand: dict[str, list[float]] = defaultdict(list)
    records: list[RunRecord] = []
    with tempfile.TemporaryDirectory() as tmp:
        if args.together:
            records = _wirespeed(args.plan, Path(tmp) / "compute.db", args.repeat)
            _, commands = _ours(records)
            for _ in range(args.repeat):
                _by_hand(commands, hand)
        else:
            for round_ in range(args.repeat):
                records += _wirespeed(args.plan, Path(tmp) / f"round{round_}.db", 1)
                _by_hand(_ours(records[-1:])[1], hand)
    ours, _ = _ours(records)
    rows = compare(ours, hand)
    emit(
        "compute_vs_by_hand",
        {
            "order": "together" if args.together else "interleaved",
            "rows": rows,
            "worst_pct": max(abs(r["difference_pct"]) for r in rows),
            "goal_pct": GOAL,
            "met": all(abs(r["difference_pct"]) <= GOAL for r in rows),
            "significant": [r["item"] for r in rows if r["p_value"] < ALPHA],
        },
    )
    if len(rows) != len(ours):
        missing = sorted(set(ours) - {r["item"] for r in rows})
        raise SystemExit(f"no by-hand figure for {missing}")


def compare(ours: dict[str, list[float]], hand: dict[str, list[float]]) -> list[dict[str, Any]]:
    """Each item's medians, their difference, each side's own spread (CV) and whether a
    permutation test tells the two sides apart at all (this machine's speed drifts by
    several % from minute to minute: a difference inside that is noise, not wirespeed)."""
    rows = []
    for item, values in ours.items():
        if item not in hand:
            continue
        mine, theirs = statistics.median(values), statistics.median(hand[item])
        rows.append(
            {
                "item": item,
                "wirespeed": [round(v) for v in values],
                "by_hand": [round(v) for v in hand[item]],
                "wirespeed_median": mine,
                "by_hand_median": theirs,
                "difference_pct": round((mine / theirs - 1) * 100, 2),
                "wirespeed_cv_pct": round(_cv(values) * 100, 1),
                "by_hand_cv_pct": round(_cv(hand[item]) * 100, 1),
                "p_value": round(permutation_test(hand[item], values).p_value, 3),
            }
        )
    return rows


def _cv(values: list[float]) -> float:
    return statistics.stdev(values) / statistics.fmean(values) if len(values) > 1 else 0.0


if __name__ == "__main__":
    main()
