"""A search cell's measurements: the figures statistics, compare and every export read.

Per goal (NDR, PDR ...): the throughput in packets/s (the relevant lower bound), the
same as layer-2 and wire (layer-1) bits per second, as % of the link's frame-rate
ceiling where the link has one, and the forwarding rate measured at that load (RFC
9971's conditional throughput). Per cell: how many trials and seconds of traffic the
search took. Each is labelled with the frame size (with FCS) and the direction.
"""

from __future__ import annotations

from wirespeed.model import Better, Measurement
from wirespeed.search.frames import l1_bits_per_second, l2_bits_per_second
from wirespeed.search.log import SearchLog

PPS = "pps"  # packets (frames) per second


def cell_labels(frame: int, direction: str) -> tuple[tuple[str, str], ...]:
    return (("frame", f"{frame} B"), ("direction", direction))


def measurements_of(log: SearchLog) -> tuple[Measurement, ...]:
    labels = cell_labels(log.frame, log.direction)
    found: list[Measurement] = []
    for result in log.result.goals:
        if result.lower is None:
            continue  # even the lowest load lost too much: no throughput to state
        name = result.goal.name
        load = result.lower
        found.append(Measurement(name, PPS, Better.HIGHER, load, labels))
        l2 = l2_bits_per_second(load, log.frame)
        l1 = l1_bits_per_second(load, log.frame)
        found.append(Measurement(f"{name} L2", "bit/s", Better.HIGHER, l2, labels))
        found.append(Measurement(f"{name} L1", "bit/s", Better.HIGHER, l1, labels))
        if log.ceiling_pps:
            share = 100 * load / log.ceiling_pps
            found.append(Measurement(f"{name} of ceiling", "%", Better.HIGHER, share, labels))
        if result.conditional_throughput is not None:
            found.append(
                Measurement(
                    f"{name} forwarding rate",
                    PPS,
                    Better.HIGHER,
                    result.conditional_throughput,
                    labels,
                )
            )
    trials = float(len(log.result.trials))
    found.append(Measurement("search trials", "count", Better.LOWER, trials, labels))
    seconds = log.result.seconds_of_traffic
    found.append(Measurement("search time", "s", Better.LOWER, seconds, labels))
    return tuple(found)
