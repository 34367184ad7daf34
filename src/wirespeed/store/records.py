"""What the store keeps about a run, besides its trials' outcomes (model.py)."""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from wirespeed import __version__
from wirespeed.model import (
    BenchSpec,
    Interval,
    LinkModel,
    PathSpec,
    TestSpec,
    TrialOutcome,
    TrialStatus,
    TunnelSpec,
)
from wirespeed.record_fields import record_of
from wirespeed.store import codec, packed_intervals


class RunStatus(enum.StrEnum):
    RUNNING = "running"  # begun, not finished: still going, or the process died
    COMPLETE = "complete"  # every trial was tried (some may have failed)
    INTERRUPTED = "interrupted"  # Ctrl-C or SIGTERM: the committed trials are kept
    FAILED = "failed"  # some trials failed, or an error stopped the run


@dataclass(frozen=True)
class HostInfo:
    """Provenance of one host: what a reader needs to reproduce or distrust a figure."""

    name: str
    role: str | None = None  # client, server, dut
    os: str | None = None  # PRETTY_NAME from /etc/os-release: "OpenWrt 19.07.4"
    kernel: str | None = None  # uname -srm, or whatever the host could say
    machine: str | None = None  # uname -m or the board's model
    tools: Mapping[str, str] = field(default_factory=dict)  # {"iperf2": "2.0.13", ...}


TOOL_KEYS = ("iperf2", "iperf3")  # provenance.host_facts puts tool versions beside kernel/os


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _host(name: str, facts: Mapping[str, Any]) -> HostInfo:
    tools = {str(k): str(v) for k, v in (facts.get("tools") or {}).items() if v}
    tools |= {key: str(facts[key]) for key in TOOL_KEYS if facts.get(key)}
    return HostInfo(
        name=name,
        role=_text(facts.get("role")),
        os=_text(facts.get("os")),
        kernel=_text(facts.get("kernel")),
        machine=_text(facts.get("machine")),
        tools=tools,
    )


def hosts_from_provenance(provenance: Mapping[str, Any]) -> tuple[HostInfo, ...]:
    """provenance["hosts"] as HostInfo: {name: facts} (provenance.collect) or [{name, ...}]."""
    hosts = provenance.get("hosts") or {}
    if isinstance(hosts, Mapping):
        return tuple(_host(str(name), facts or {}) for name, facts in hosts.items())
    return tuple(_host(str(h.get("name", "?")), h) for h in hosts if isinstance(h, Mapping))


@dataclass(frozen=True)
class RunInfo:
    """How a run was started: written once by begin_run."""

    title: str | None
    started_at: float  # unix time
    argv: tuple[str, ...] = ()
    plan_path: str | None = None
    plan_text: str | None = None  # the plan as it was, so a run can be repeated
    wirespeed_version: str = __version__
    # JSON values only (dicts, lists, strings, numbers, None), so it comes back equal:
    # {"hosts": {name: {"kernel", "os", "iperf2", "iperf3", ...}}, "labs": {...}, ...}.
    provenance: Mapping[str, Any] = field(default_factory=dict)
    # What the plan's `expect:` asked, as expectations.encode() keeps it (JSON values);
    # None: nothing stored (a run stored before, or imported): see report/model.py.
    expectations: Mapping[str, Any] | None = None
    # How the run measures its plan, as run/settings.py keeps it (JSON values); None:
    # nothing stored (a run stored before, or imported): its argv says.
    settings: Mapping[str, Any] | None = None

    @property
    def hosts(self) -> tuple[HostInfo, ...]:
        return hosts_from_provenance(self.provenance)

    @classmethod
    def from_fields(cls, run: Mapping[Any, Any]) -> RunInfo:
        """A run's info from its stored fields (a runs row, or a bundle's run)."""
        return record_of(cls, run, argv=tuple(run["argv"]), settings=run.get("settings"))


@dataclass(frozen=True)
class RunSummary:
    """One line of `wirespeed runs`."""

    id: int
    started_at: float
    finished_at: float | None
    title: str | None
    status: RunStatus
    trials_ok: int
    trials_failed: int
    paths: tuple[str, ...]  # path names in the order the run first met them


# One direction's interval series as the store keeps them (store/packed_intervals.py):
# its sum series, and each of its streams' in the order of its streams; None: no series.
PackedDirection = tuple[bytes | None, tuple[bytes | None, ...]]


@dataclass(frozen=True)
class RunRecord:
    """A run as stored: enough to report, compare or re-parse without the devices."""

    id: int
    info: RunInfo
    status: RunStatus
    finished_at: float | None
    outcomes: tuple[TrialOutcome, ...]  # in the order they were committed
    # Store.load_run(intervals="packed"): the outcomes without their interval series,
    # which are here instead, still packed: per outcome, per direction of its result (in
    # the order of Result.directions; nothing for an outcome without a result). The
    # reports that show series write them from these without an object per interval.
    packed: tuple[tuple[PackedDirection, ...], ...] | None = None

    @classmethod
    def from_fields(
        cls,
        run: Mapping[Any, Any],
        run_id: int,
        outcomes: tuple[TrialOutcome, ...],
        packed: tuple[tuple[PackedDirection, ...], ...] | None = None,
    ) -> RunRecord:
        """A run from its stored fields (a runs row, or a bundle's run) and its outcomes."""
        return cls(
            id=run_id,
            info=RunInfo.from_fields(run),
            status=RunStatus(run["status"]),
            finished_at=run["finished_at"],
            outcomes=outcomes,
            packed=packed,
        )

    @property
    def trials_ok(self) -> int:
        return sum(1 for o in self.outcomes if o.status is TrialStatus.OK)

    @property
    def trials_failed(self) -> int:
        return sum(1 for o in self.outcomes if o.status is TrialStatus.FAILED)


# -- reading what a run record carries -------------------------------------------------
# Readers of RunRecord.packed (Store.load_run(intervals="packed")) decode its series with
# these, and exports that write a test's settings "as the store keeps them" take their
# shape from here: the encodings themselves stay the store's (packed_intervals.py,
# codec.py), which reports never import.


def unpack_series(blob: bytes) -> tuple[Interval, ...]:
    """One packed interval series of RunRecord.packed, as Interval objects."""
    return packed_intervals.unpack(blob)


def series_rows(blob: bytes) -> list[tuple[float, float, int, float]] | None:
    """A packed series without optional fields as (start, end, bytes, bit/s) rows, without
    an object each (None for another layout: unpack_series it); for reports that write
    hundreds of thousands of intervals."""
    return packed_intervals.plain_records(blob)


def spec_fields(spec: TestSpec) -> dict[str, Any]:
    """A test's settings as the store keeps them (trials.spec)."""
    return codec.encode_spec(spec)


def path_fields(
    path: PathSpec,
    link: Callable[[LinkModel | None], Any],
    tunnel: Callable[[TunnelSpec], Any],
) -> dict[str, Any]:
    """A path's fields as the store keeps them (trials.path), its link and tunnel as
    `link` and `tunnel` write them."""
    return codec.encode_path(path, link, tunnel)


def outcome_fields(outcome: TrialOutcome, test: Any, path: Any) -> dict[str, Any]:
    """A trial's key, its test and path as written, and how it went: the head of a trial's
    record as a bundle keeps it."""
    return codec.encode_outcome(outcome, test, path)


def bench_fields(bench: BenchSpec | None) -> dict[str, Any] | None:
    """A benchmark's options as the store keeps them (trials.bench)."""
    return codec.encode_bench(bench)
