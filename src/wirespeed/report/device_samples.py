"""The device's samples of a stored run, as the HTML report draws them.

The store keeps each sampler's raw stream; the per-core series are rebuilt from it here
(parsing can always be redone), the interrupt distribution comes from the stored summary.
"""

from __future__ import annotations

from wirespeed.report.html_monitor import CoreLoadSeries, DeviceSamples, IrqDistribution
from wirespeed.sampling.series import core_series
from wirespeed.sampling.stream import parse_stream
from wirespeed.sampling.summary import MonitorSummary
from wirespeed.store.records import RunRecord


def device_samples(record: RunRecord) -> list[DeviceSamples]:
    samples: list[DeviceSamples] = []
    for outcome in record.outcomes:
        for monitor in outcome.monitors:
            if not monitor.raw:
                continue
            series = core_series(parse_stream(monitor.raw).snapshots)
            if not series or not series[0].t:
                continue
            t = series[0].t
            if any(s.t != t for s in series):
                continue  # cores sampled at different moments cannot share one time axis
            cores = tuple(
                CoreLoadSeries(
                    cpu=s.cpu,
                    user=tuple(share.user + share.nice for share in s.shares),
                    system=tuple(share.system + share.irq for share in s.shares),
                    softirq=tuple(share.softirq for share in s.shares),
                )
                for s in series
            )
            cpus = tuple(s.cpu for s in series)
            interrupts: tuple[IrqDistribution, ...] = ()
            if monitor.summary:
                summary = MonitorSummary.from_json(monitor.summary)
                if summary.cpus == cpus:
                    interrupts = tuple(
                        IrqDistribution(irq.irq, irq.name, irq.per_cpu_per_s)
                        for nic in summary.nics
                        for irq in nic.irqs
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
