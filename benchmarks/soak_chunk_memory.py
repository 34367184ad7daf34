"""What parsing a soak's chunks does to the resident size, without a lab.

A real 60-s irtt chunk (100 probes a second, captured on loopback: an irtt server on
127.0.0.1 and a client against it) is parsed `--chunks` times in a fresh Python, each
chunk stored as a soak chunk in a throwaway SQLite store as `wirespeed soak` does, and
the RSS read after each. Two ways, in alternate children:

  - `stream`: wirespeed's parser (soak.chunk.parse_chunk: round trips decoded one at a
    time);
  - `whole`: the same figures from the whole document decoded at once (json.loads), the
    way the parser worked before.

    sudo .venv/bin/python -m benchmarks.soak_chunk_memory [--chunks 40] [--capture FILE]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.common import emit

PORT = 29_292


def capture(path: Path, seconds: int) -> None:
    server = subprocess.Popen(
        ["irtt", "server", "-b", f"127.0.0.1:{PORT}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        time.sleep(0.5)
        subprocess.run(
            ["irtt", "client", "-i", "10ms", "-d", f"{seconds}s", "-Q", "-o", str(path),
             f"127.0.0.1:{PORT}"],
            check=True,
        )  # fmt: skip
    finally:
        server.terminate()
        server.wait()


def rss_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def child(way: str, chunk: Path, chunks: int) -> dict[str, Any]:
    """One process's run of `chunks` parses (this runs in the child)."""
    from wirespeed.soak import memory, records
    from wirespeed.soak.chunk import ChunkProbes, parse_chunk, probes_of
    from wirespeed.store import Store

    def whole(text: str) -> ChunkProbes:
        # The whole tree at once, as the parser did before; the same figures from it.
        return probes_of(json.loads(text)["round_trips"], 10**7)

    parse = parse_chunk if way == "stream" else (lambda text, _: whole(text))
    memory.limit_arenas()
    rss: list[int] = []
    times: list[float] = []
    with tempfile.TemporaryDirectory() as tmp, Store.open(Path(tmp) / "soak.db") as store:
        soak_id = records.begin(store, "memory", "", None, {})
        for position in range(chunks):
            text = chunk.read_text()
            started = time.perf_counter()
            probes = parse(text, 10**7)
            times.append(time.perf_counter() - started)
            del text
            now = time.time()
            records.add_chunk(
                store, soak_id, records.ChunkRecord(position, "probes", now, now + 60, probes)
            )
            memory.trim()
            rss.append(rss_kb())
    return {
        "rss_kb": rss,
        "peak_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        "parse_s_median": sorted(times)[len(times) // 2],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=2, help="children per way, alternated")
    parser.add_argument("--capture", type=Path, help="an irtt JSON to use (default: capture)")
    parser.add_argument("--child", nargs=2, metavar=("WAY", "FILE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child[0], Path(args.child[1]), args.chunks)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        chunk = args.capture or Path(tmp) / "chunk.json"
        if args.capture is None:
            capture(chunk, 60)
        results: dict[str, list[dict[str, Any]]] = {"stream": [], "whole": []}
        for _ in range(args.rounds):
            for way, runs in results.items():
                done = subprocess.run(
                    [sys.executable, "-m", "benchmarks.soak_chunk_memory", "--chunks",
                     str(args.chunks), "--child", way, str(chunk)],
                    check=True, capture_output=True, text=True,
                )  # fmt: skip
                run = json.loads(done.stdout)
                rss = run.pop("rss_kb")
                steady = rss[min(5, len(rss) - 1) :]
                run |= {
                    "rss_first_kb": rss[0],
                    "rss_chunk5_kb": steady[0],
                    "rss_last_kb": rss[-1],
                    "growth_from_chunk5": round((max(steady) - min(steady)) / min(steady), 4),
                }
                runs.append(run)
        emit(
            "soak_chunk_memory",
            {"chunk_bytes": chunk.stat().st_size, "chunks": args.chunks, "runs": results},
        )


if __name__ == "__main__":
    main()
