"""The device's samples of a stored run, as the HTML report draws them.

The per-core series come from each summary's cpu_timeline, the interrupt distribution
from its NICs' IRQs. Summaries stored before the timeline existed (version 1) have none:
their series are rebuilt from the sampler's raw stream where the record holds it
(Store.load_run(outputs=True)), as parsing can always be redone.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

from wirespeed.model import MonitorRecord
from wirespeed.report.html_monitor import CoreLoadSeries, DeviceSamples, IrqDistribution
from wirespeed.report.stored_summary import summary_fields
from wirespeed.sampling.stream import parse_stream
from wirespeed.sampling.timelines import cpu_timeline
from wirespeed.store.direct import field_setter
from wirespeed.store.records import RunRecord

Timeline = tuple[tuple[float, ...], tuple[int, ...], tuple[CoreLoadSeries, ...]]


def device_samples(record: RunRecord) -> list[DeviceSamples]:
    samples: list[DeviceSamples] = []
    for outcome in record.outcomes:
        for monitor in outcome.monitors:
            fields = summary_fields(monitor.summary) if monitor.summary else {}
            timeline = _stored_timeline(fields) or _parsed_timeline(monitor)
            if timeline is None:
                continue
            t, cpus, cores = timeline
            interrupts: tuple[IrqDistribution, ...] = ()
            if tuple(fields.get("cpus", ())) == cpus:
                interrupts = tuple(
                    IrqDistribution(irq["irq"], irq["name"], tuple(irq["per_cpu_per_s"]))
                    for nic in fields.get("nics", ())
                    for irq in nic["irqs"]
                )
            samples.append(
                DeviceSamples(
                    trial=outcome.trial.key,
                    host=monitor.host,
                    cpus=cpus,
                    t=t,
                    cores=cores,
                    interrupts=interrupts,
                    role=monitor.role,
                )
            )
    return samples


def _stored_timeline(fields: dict[str, Any]) -> Timeline | None:
    timeline = fields.get("cpu_timeline")
    if not timeline or not timeline["t"]:
        return None
    cpus = tuple(timeline["cpus"])
    shares = list(zip(timeline["user"], timeline["system"], timeline["softirq"], strict=True))
    if len(shares) != len(cpus) or not _plain_shares(shares, len(timeline["t"])):
        # CoreLoadSeries says what is wrong.
        cores = tuple(
            CoreLoadSeries(cpu, tuple(user), tuple(system), tuple(softirq))
            for cpu, (user, system, softirq) in zip(cpus, shares, strict=True)
        )
        return tuple(timeline["t"]), cpus, cores
    cores_made = []
    for cpu, (user, system, softirq) in zip(cpus, shares, strict=True):
        core = _new(CoreLoadSeries)
        series = {"user": tuple(user), "system": tuple(system), "softirq": tuple(softirq)}
        _set_core(core, {"cpu": cpu, **series})
        cores_made.append(core)
    return tuple(timeline["t"]), cpus, tuple(cores_made)


# Each trial's cores made at once, with CoreLoadSeries's checks made here for all of them
# (store/direct.py says why): 20,000 cores' __init__ were a quarter of a 10,000-trial page.
_set_core = field_setter(CoreLoadSeries, ("cpu", "user", "system", "softirq"))
_new = object.__new__


def _plain_shares(shares: list[tuple[list[float], list[float], list[float]]], n: int) -> bool:
    """What CoreLoadSeries checks: each core's three series as long as the times, every
    value a finite number."""
    values = [series for core in shares for series in core]
    return all(len(series) == n for series in values) and all(
        map(math.isfinite, itertools.chain.from_iterable(values))
    )


def _parsed_timeline(monitor: MonitorRecord) -> Timeline | None:
    """From the raw stream, for a summary without a timeline."""
    if not monitor.raw:
        return None
    timeline = cpu_timeline(parse_stream(monitor.raw).snapshots)
    if timeline is None:
        return None
    fields = {
        "cpu_timeline": {
            "t": timeline.t,
            "cpus": timeline.cpus,
            "user": timeline.user,
            "system": timeline.system,
            "softirq": timeline.softirq,
        }
    }
    return _stored_timeline(fields)


def needs_streams(record: RunRecord) -> bool:
    """Whether some summary of the run lacks its CPU timeline (stored before it existed),
    so that the HTML report needs the raw streams to draw it."""
    return any(
        monitor.summary and '"cpu_timeline"' not in monitor.summary
        for outcome in record.outcomes
        for monitor in outcome.monitors
    )
