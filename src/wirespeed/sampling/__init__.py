"""What a host was doing during a trial: one on-device sampler, its parsers, a summary.

    running = Sampler.start(host, interval=0.5)     # one sh+awk loop on the host
    ...                                              # the trial
    samples = running.stop()                         # SampleSet; .partial if it broke
    summary = summarize(samples)                     # MonitorSummary, JSON-ready

The sampler is POSIX sh and awk and runs under busybox (see sampler.sh and stream.py
for its output format); the parsers are pure functions of the files' text.
"""

from wirespeed.sampling.model import SampleSet, Snapshot
from wirespeed.sampling.script import sampler_argv
from wirespeed.sampling.session import RunningSampler, Sampler
from wirespeed.sampling.stream import parse_stream
from wirespeed.sampling.summary import MonitorSummary, summarize

__all__ = [
    "MonitorSummary",
    "RunningSampler",
    "SampleSet",
    "Sampler",
    "Snapshot",
    "parse_stream",
    "sampler_argv",
    "summarize",
]
