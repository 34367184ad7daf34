"""Soak outage detection against its truth, and what a long soak costs.

A lab soak (router, gbe) with six injected outages of known start and length, both
kinds (link down, forwarding stopped), 0.5-10 s, one of them across a chunk's start:

  - every injected outage found, its start and length within 0.1 s, and no other;
  - each matched with its injected kernel line (the first link event near it);
  - wirespeed's RSS, sampled every 5 s from minute 5 to the end, within 10 %;
  - wirespeed's CPU time (user + system, its own and its reaped children's) per
    minute, from minute 5 to the end: flat, not growing with the chunks kept;
  - the store's and the HTML report's size per hour, and the estimate for 24 h.

`--part resume`: a shorter soak killed with SIGKILL mid-way and resumed with
`wirespeed soak --resume`: what the kill lost (at most the chunk in progress), and that
the faults after the resume are still found.

    sudo .venv/bin/python -m benchmarks.soak_truth [--minutes 30] [--part truth|resume]
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.common import emit
from wirespeed.soak.render import summary_of
from wirespeed.soak.summary import SoakSummary
from wirespeed.store import Store

GOAL_S = 0.1
STRICT_THRESHOLD = 10
RSS_GOAL = 0.10
WIRESPEED = str(Path(sys.executable).with_name("wirespeed"))

# (at s, down s, kind) for a 30-minute soak of 60 s chunks; 1495 s + 10 s crosses the
# chunk that starts near 1500 s. Scaled for a shorter --minutes.
FAULTS_30 = [
    (150.0, 0.5, "link"),
    (420.0, 2.0, "forwarding"),
    (700.0, 3.2, "link"),
    (1000.0, 5.0, "forwarding"),
    (1290.0, 7.5, "link"),
    (1495.0, 10.0, "forwarding"),
]


def plan_text(minutes: float, chunk: float, faults: list[tuple[float, float, str]]) -> str:
    listed = "\n".join(
        f"    - {{at: {at:g}s, down: {down:g}s, kind: {kind}}}" for at, down, kind in faults
    )
    return f"""title: soak truth, {len(faults)} injected outages
lab: {{link: gbe}}
path: {{name: R, topology: router}}
soak:
  duration: {minutes * 60:g}s
  chunk: {chunk:g}s
  ethtool: [wan, lan]
  faults:
{listed}
"""


def rss_kb(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def cpu_s(pid: int) -> float | None:
    """/proc/PID/stat: utime + stime + cutime + cstime, in seconds."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return sum(int(value) for value in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def per_minute(samples: list[tuple[float, float]]) -> list[float]:
    """CPU seconds used in each whole minute of (elapsed s, cumulative CPU s) samples."""
    rates: list[float] = []
    minute = 1
    last = samples[0] if samples else None
    for t, used in samples:
        if last is not None and t >= minute * 60:
            rates.append(round(used - last[1], 2))
            last, minute = (t, used), minute + 1
    return rates


def _backlog_drops(summary: SoakSummary, at: float) -> int | None:
    """The DUT host's softnet backlog drops during the chunk holding `at`: in this lab
    the backlog is the whole machine's, shared with whatever else runs on it."""
    for chunk in summary.chunks:
        if chunk["start"] <= at <= chunk["end"]:
            return int(chunk["counters"].get("softnet", {}).get("dropped", 0))
    return None


def check_truth(summary: SoakSummary) -> dict[str, Any]:
    faults = sorted(summary.faults, key=lambda f: float(f["start"]))
    outages = list(summary.matched)
    rows = []
    unmatched = list(outages)
    for fault in faults:
        start, end = float(fault["start"]), float(fault["end"])
        near = [m for m in unmatched if abs(m.outage.start - start) <= 1.0]
        row: dict[str, Any] = {"kind": fault["kind"], "down": fault["down"]}
        row["truth_length_s"] = round(end - start, 4)
        if not near:
            row["found"] = False
            rows.append(row)
            continue
        m = near[0]
        unmatched.remove(m)
        cause = m.cause
        row |= {
            "found": True,
            "start_error_s": round(m.outage.start - start, 4),
            "length_error_s": round(m.outage.duration - (end - start), 4),
            "lost": m.outage.lost,
            "direction": m.outage.direction,
            "blind": m.outage.blind,
            "matched_injected_line": bool(cause and cause.injected),
            "cause": cause.message if cause else None,
        }
        row["within_goal"] = (
            abs(row["start_error_s"]) <= GOAL_S and abs(row["length_error_s"]) <= GOAL_S
        )
        rows.append(row)
    return {
        "faults": rows,
        "all_found_within_goal": all(r.get("within_goal") for r in rows),
        "all_matched": all(r.get("matched_injected_line") for r in rows),
        "other_outages": [
            m.outage.to_dict() | {"backlog_drops_in_chunk": _backlog_drops(summary, m.outage.start)}
            for m in unmatched
        ],
        "sentence": summary.sentence,
    }


def soak_process(plan: Path, db: Path, lab: str, *extra: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [WIRESPEED, "soak", str(plan), "--db", str(db), "--lab-name", lab, *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def part_truth(minutes: float, work: Path) -> dict[str, Any]:
    scale = minutes / 30.0
    faults = [(at * scale, down, kind) for at, down, kind in FAULTS_30]
    plan = work / "truth.yaml"
    plan.write_text(plan_text(minutes, 60.0, faults))
    db = work / "truth.db"
    started = time.time()
    process = soak_process(plan, db, "soak-bench")
    samples: list[tuple[float, int]] = []
    cpu: list[tuple[float, float]] = []
    while process.poll() is None:
        time.sleep(5)
        if (kb := rss_kb(process.pid)) is not None:
            samples.append((time.time() - started, kb))
        if (used := cpu_s(process.pid)) is not None:
            cpu.append((time.time() - started, used))
    out, err = process.communicate()
    elapsed = time.time() - started
    with Store.open(db) as store:
        summary = summary_of(store, None)
    assert summary is not None, err.decode()
    html = work / "truth.html"
    subprocess.run(
        [WIRESPEED, "soak", "--report", "--db", str(db), "-o", str(html)], check=True,
        capture_output=True,
    )  # fmt: skip
    steady = [kb for t, kb in samples if t >= min(300.0, elapsed / 6)]
    hours = summary.watched / 3600
    result = check_truth(summary)
    with Store.open(db) as store:
        strict = summary_of(store, None, threshold=STRICT_THRESHOLD)
    assert strict is not None
    # The same stored loss runs, an outage from 100 ms: what the machine's own short
    # losses (other work's traffic overflowing the shared per-CPU backlog) do not reach.
    result["threshold_10"] = check_truth(strict)
    result |= {
        "minutes": minutes,
        "exit_status": process.returncode,
        "wall_s": round(elapsed, 1),
        "watched_s": round(summary.watched, 1),
        "chunks": len(summary.chunks),
        "rss_kb": {
            "first": steady[0] if steady else None,
            "min": min(steady, default=None),
            "max": max(steady, default=None),
            "last": steady[-1] if steady else None,
            "samples": len(steady),
            "spread": round((max(steady) - min(steady)) / min(steady), 4) if steady else None,
        },
        "cpu_s_per_minute": per_minute(cpu),
        "store_bytes": db.stat().st_size,
        "html_bytes": html.stat().st_size,
        "store_bytes_per_hour": round(db.stat().st_size / hours),
        "html_bytes_per_hour": round(html.stat().st_size / hours),
        "store_bytes_24h_estimate": round(db.stat().st_size / hours * 24),
        "html_bytes_24h_estimate": round(html.stat().st_size / hours * 24),
        "stdout": out.decode().strip().splitlines()[:1],
    }
    result["rss_within_goal"] = result["rss_kb"]["spread"] is not None and (
        result["rss_kb"]["spread"] <= RSS_GOAL
    )
    return result


def part_resume(work: Path) -> dict[str, Any]:
    """A 3-minute soak of 30 s chunks, killed at 100 s, resumed at once."""
    faults = [(40.0, 2.0, "link"), (140.0, 3.0, "forwarding")]
    plan = work / "resume.yaml"
    plan.write_text(plan_text(3.0, 30.0, faults))
    db = work / "resume.db"
    process = soak_process(plan, db, "soak-bench-kill")
    time.sleep(100)
    killed_at = time.time()
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    with Store.open(db) as store:
        before = summary_of(store, None)
    assert before is not None
    kept_until = before.ended_at or killed_at
    resumed = subprocess.run(
        [WIRESPEED, "soak", "--resume", str(before.header.id), "--db", str(db)],
        capture_output=True, check=False,
    )  # fmt: skip
    with Store.open(db) as store:
        after = summary_of(store, None)
    assert after is not None
    result = check_truth(after)
    result |= {
        "lost_by_kill_s": round(killed_at - kept_until, 2),
        "watched_before_kill_s": round(before.watched, 1),
        "watched_total_s": round(after.watched, 1),
        "status": after.header.status,
        "resume_exit_status": resumed.returncode,
        "resume_stderr": resumed.stderr.decode().strip().splitlines()[-2:],
    }
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--part", choices=["truth", "resume"], default="truth")
    parser.add_argument("--keep", metavar="DIR", help="keep the store and report here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(args.keep or tmp)
        work.mkdir(parents=True, exist_ok=True)
        if args.part == "truth":
            emit("soak_truth", part_truth(args.minutes, work))
        else:
            emit("soak_resume", part_resume(work))


if __name__ == "__main__":
    main()
