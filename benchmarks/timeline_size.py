"""Timeline size and speed: the HTML of a timeline chart (report/timeline.py) of a
synthetic 30-minute and 24-hour soak, its size, the Python time to build it, and how long
headless Chromium takes to load and draw it, then to redraw it zoomed in.

Each dataset is 8 one-per-second series in 5 lanes (throughput down and up, round trip
p50 and p99, loss, temperature, power, CPU clock) with noise, spikes and dips; 50
intervals (outages of 10 ms to 30 s) and 500 instants (kernel events), both scaled down
for 30 minutes (3 and 20). Every size is measured --repeat times, each time in a new
Chromium tab; the figures are [min, max] and the median.

    uv run --frozen python -m benchmarks.timeline_size [--repeat 3] [--keep PATH]

Chromium is the Debian package's (`chromium`), driven as the browser tests drive it
(tests/browser/chromium_cdp.py). The load time is the page's own clock
(performance.now() when the last chart is drawn: navigation, parsing, script and layout,
the chart's data-drawn-at);
the redraw is the chart's own time for a redraw after a zoom (data-drawn, ms).
"""

from __future__ import annotations

import argparse
import gzip
import math
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.common import emit
from wirespeed.report.timeline import Lane, Mark, Series, Span, timeline_section

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from browser.chromium_cdp import chromium, chromium_path  # noqa: E402

EVENTS = ("tx-hang", "adapter-reset", "link-down", "link-up", "under-voltage", None)


def synthetic(seconds: int, spans: int, marks: int, seed: int = 1) -> dict[str, Any]:
    """Lanes, intervals and instants of a soak of `seconds` at 1 Hz: 8 series."""
    rng = random.Random(seed)
    t = [float(i) for i in range(seconds)]
    outages = []
    for _ in range(spans):
        start = rng.uniform(0, seconds - 40)
        length = rng.choice((0.01, 0.2, 1.5, 4.0, 30.0))
        outages.append(Span(start, start + length, f"outage {length:g} s", "outage"))

    def noisy(base: float, spread: float, spikes: float = 0.0005) -> list[float | None]:
        values: list[float | None] = []
        for i in range(seconds):
            value = base + spread * math.sin(i / 3600 * math.tau) + rng.gauss(0, spread / 4)
            if rng.random() < spikes:
                value += spread * 12
            values.append(round(value, 2))
        return values

    down = noisy(940, 4)
    for span in outages:  # the traffic stops during an outage: a dip to zero
        down[min(int(span.start), seconds - 1)] = 0.0
    lanes = [
        Lane("throughput", "Mbit/s", (Series("down", t, down), Series("up", t, noisy(935, 5)))),
        Lane(
            "round trip", "ms", (Series("p50", t, noisy(1.2, 0.2)), Series("p99", t, noisy(4, 1)))
        ),
        Lane("loss", "%", (Series("loss", t, noisy(0.01, 0.01, 0.002)),), digits=3),
        Lane("temperature", "°C", (Series("soc", t, noisy(62, 5)),), digits=1),
        Lane("power", "W", (Series("board", t, noisy(4.2, 0.4)),)),
        Lane("CPU clock", "MHz", (Series("policy4", t, noisy(1800, 40)),), digits=0),
    ]
    instants = []
    for _ in range(marks):
        at = rng.uniform(0, seconds)
        event = rng.choice(EVENTS)
        text = f"[{at:12.6f}] igb 0000:01:00.0 eth0: Detected Tx Unit Hang"
        instants.append(Mark(at, event or "kernel", text))
    return {"lanes": lanes, "intervals": outages, "instants": instants}


def page(body: str) -> str:
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "script-src 'unsafe-inline'; style-src 'unsafe-inline'\">"
        '<title>timeline</title></head><body style="max-width:1180px;margin:auto">'
        f"{body}</body></html>"
    )


DONE = (
    "(function(){var f=document.querySelectorAll('figure.ws-timeline');"
    "if(!f.length)return null;var last=0;for(var i=0;i<f.length;i++){"
    "if(f[i].getAttribute('data-ready')!=='true')return null;"
    "last=Math.max(last,Number(f[i].getAttribute('data-drawn-at')));}"
    "return last;})()"
)
ZOOM = (
    "(function(){var c=document.querySelector('figure.ws-timeline').wsChart;"
    "var d=c.data,s=d.end-d.start;c.zoom(d.start+s*0.4,d.start+s*0.45);"
    "return Number(c.figure.getAttribute('data-drawn'));})()"
)


def measure(
    name: str, seconds: int, spans: int, marks: int, *, repeat: int, keep: Path | None
) -> None:
    data = synthetic(seconds, spans, marks)
    builds, html = [], ""
    for _ in range(repeat):
        started = time.perf_counter()
        html = page(timeline_section(f"Synthetic soak, {name}", **data))
        builds.append(time.perf_counter() - started)
    raw = html.encode()
    executable = chromium_path()
    if executable is None:
        sys.exit("chromium is not installed (Debian: apt-get install chromium)")
    loads: list[float] = []
    zooms: list[float] = []
    draws: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(keep or tmp).resolve() / f"timeline-{name.replace(' ', '')}.html"
        path.write_bytes(raw)
        with chromium(executable) as browser:
            for _ in range(repeat):
                tab = browser.open(path.as_uri())
                loads.append(float(tab.wait_for(DONE, timeout=120)))
                draws.append(
                    float(
                        tab.evaluate(
                            "Number(document.querySelector('figure.ws-timeline')"
                            ".getAttribute('data-drawn'))"
                        )
                    )
                )
                zooms.append(float(tab.evaluate(ZOOM)))
                _close(browser, path.as_uri())

    def figures(values: list[float], scale: float = 1.0, digits: int = 1) -> dict[str, Any]:
        scaled = [round(v * scale, digits) for v in values]
        return {
            "min": min(scaled),
            "median": round(statistics.median(scaled), digits),
            "max": max(scaled),
        }

    emit(
        "timeline_size",
        {
            "dataset": name,
            "series": 8,
            "points_per_series": seconds,
            "intervals": spans,
            "instants": marks,
            "repeat": repeat,
            "html_bytes": len(raw),
            "html_gzip_bytes": len(gzip.compress(raw)),
            "build_ms": figures(builds, 1000),
            "chromium_load_and_draw_ms": figures(loads),
            "chromium_first_draw_ms": figures(draws),
            "chromium_zoomed_redraw_ms": figures(zooms),
        },
    )


def _close(browser: Any, url: str) -> None:
    """Close the tabs showing `url`: each repetition loads the page in a new one."""
    for target in browser.send("Target.getTargets")["targetInfos"]:
        if target["type"] == "page" and target["url"] == url:
            browser.send("Target.closeTarget", {"targetId": target["targetId"]})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="write the pages to this directory")
    args = parser.parse_args()
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
    measure("30 min", 1800, 3, 20, repeat=args.repeat, keep=args.keep)
    measure("24 h", 86_400, 50, 500, repeat=args.repeat, keep=args.keep)


if __name__ == "__main__":
    main()
