"""Bundles: runs in one self-contained, versioned, compressed file (`wirespeed export`),
brought into another store by `wirespeed import` (docs/json-format.md, "Bundle").

A bundle is gzip-compressed JSON, written so that the same runs always give the same
bytes (sorted keys, no time or file name in the gzip header): exporting a run imported
from a bundle gives that bundle again. Each run in it has an id, the SHA-256 of its own
content: the store keeps it (runs.origin), so importing a bundle twice stores its runs
once. The document's digest covers everything else in it: a bundle edited by hand, or
damaged, is refused whole before anything is stored.

Readers of a bundle's runs (compare) get them as RunRecords, rebuilt exactly as the
store rebuilds its own.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select, update

from wirespeed import __version__
from wirespeed.errors import UsageError
from wirespeed.model import (
    DirectionResult,
    Flow,
    Interval,
    Proto,
    Result,
    StreamResult,
    TestCase,
    Tool,
    ToolWarning,
    Transfer,
    Trial,
    TrialOutcome,
    TrialStatus,
    WarningKind,
)
from wirespeed.store import codec, schema, writing
from wirespeed.store.records import RunRecord
from wirespeed.store.store import Store

FORMAT = "wirespeed-bundle"
VERSION = 1  # of the document; a reader refuses a newer one (docs/json-format.md)
SUFFIX = ".wsr"
# A bundle of a soak of days with every sampler stream is hundreds of MB of JSON: past
# this, a file is refused before it is decompressed whole.
MAX_JSON_BYTES = 2 * 1024**3

Json = dict[str, Any]


class BundleError(UsageError):
    """A file that cannot be read as a bundle: what is wrong with it, and that nothing
    was stored."""


def canonical(value: Any) -> bytes:
    """The one way a bundle's JSON is written: equal values give equal bytes."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode()


def digest(value: Any) -> str:
    return "sha256:" + hashlib.sha256(canonical(value)).hexdigest()


# -- runs as JSON -------------------------------------------------------------------------


def _transfer(value: Transfer | None) -> list[float] | None:
    return None if value is None else [value.bytes, value.seconds, value.bits_per_second]


def _un_transfer(value: Sequence[Any] | None) -> Transfer | None:
    return None if value is None else Transfer(int(value[0]), value[1], value[2])


_INTERVAL_FIELDS = (
    "start",
    "end",
    "bytes",
    "bits_per_second",
    "retransmits",
    "jitter_ms",
    "lost",
    "packets",
)


def _intervals(series: Sequence[Interval]) -> list[list[Any]]:
    return [[getattr(i, name) for name in _INTERVAL_FIELDS] for i in series]


def _un_intervals(rows: Sequence[Sequence[Any]]) -> tuple[Interval, ...]:
    return tuple(Interval(**dict(zip(_INTERVAL_FIELDS, row, strict=True))) for row in rows)


def _udp(part: DirectionResult | StreamResult) -> Json | None:
    udp = part.udp
    if udp is None:
        return None
    return {
        "jitter_ms": udp.jitter_ms,
        "lost": udp.lost,
        "packets": udp.packets,
        "out_of_order": udp.out_of_order,
    }


def _part(part: DirectionResult | StreamResult) -> Json:
    data: Json = {
        "flow": part.flow.value,
        "sent": _transfer(part.sent),
        "received": _transfer(part.received),
        "retransmits": part.retransmits,
        "udp": _udp(part),
        "intervals": _intervals(part.intervals),
    }
    if isinstance(part, StreamResult):
        data["id"] = part.id
    else:
        data["streams"] = [_part(stream) for stream in part.streams]
    return data


def _common(data: Mapping[str, Any]) -> Json:
    udp = data["udp"]
    return {
        "flow": Flow(data["flow"]),
        "sent": _un_transfer(data["sent"]),
        "received": _un_transfer(data["received"]),
        "retransmits": data["retransmits"],
        "udp": None if udp is None else codec.decode_udp({"has_udp": True, **udp}),
        "intervals": _un_intervals(data["intervals"]),
    }


def _un_direction(data: Mapping[str, Any]) -> DirectionResult:
    streams = tuple(StreamResult(id=s["id"], **_common(s)) for s in data["streams"])
    return DirectionResult(streams=streams, **_common(data))


def _result(result: Result | None) -> Json | None:
    if result is None:
        return None
    return {
        "tool": str(result.tool),
        "protocol": None if result.protocol is None else result.protocol.value,
        "tool_version": result.tool_version,
        "directions": [_part(d) for d in result.directions],
        "measurements": [codec.encode_measurement(m) for m in result.measurements],
        "warnings": [{"kind": w.kind.value, "message": w.message} for w in result.warnings],
    }


def _un_result(data: Mapping[str, Any] | None) -> Result | None:
    if data is None:
        return None
    return Result(
        tool=Tool(data["tool"]),
        protocol=None if data["protocol"] is None else Proto(data["protocol"]),
        directions=tuple(_un_direction(d) for d in data["directions"]),
        warnings=tuple(ToolWarning(WarningKind(w["kind"]), w["message"]) for w in data["warnings"]),
        tool_version=data["tool_version"],
        measurements=tuple(codec.decode_measurement_row(m) for m in data["measurements"]),
    )


def _outcome(outcome: TrialOutcome) -> Json:
    trial = outcome.trial
    test = {
        "id": trial.test.id,
        "name": trial.test.name,
        "tool": str(trial.test.tool),
        "spec": codec.encode_spec(trial.test.spec),
        "options": codec.encode_bench(trial.test.options),
    }
    return {
        **codec.encode_outcome(outcome, test, codec.encode_path(trial.path)),
        "result": _result(outcome.result),
        "raw_outputs": [codec.encode_raw(raw) for raw in outcome.raw],
        "samples": [codec.encode_monitor(m) for m in outcome.monitors],
        "findings": [codec.encode_finding(f) for f in outcome.findings],
    }


def _un_outcome(data: Mapping[str, Any]) -> TrialOutcome:
    test = data["test"]
    tool = Tool(test["tool"])
    options = None if test["options"] is None else codec.decode_bench(test["options"])
    case = TestCase(
        id=test["id"],
        name=test["name"],
        tool=tool,
        spec=codec.decode_spec(test["spec"]),
    ).with_options(options)
    trial = Trial(
        test=case,
        path=codec.decode_path(data["path"]),
        variant=data["variant"],
        repetition=data["repetition"],
    )
    if trial.key != data["key"]:
        raise ValueError(f"trial {data['key']!r} does not match its own test, path and variant")
    return TrialOutcome(
        trial=trial,
        status=TrialStatus(data["status"]),
        started_at=data["started_at"],
        finished_at=data["finished_at"],
        result=_un_result(data["result"]),
        reason=data["reason"],
        raw=tuple(codec.decode_raw(r) for r in data["raw_outputs"]),
        monitors=tuple(codec.decode_monitor(m) for m in data["samples"]),
        findings=tuple(codec.decode_finding(f) for f in data["findings"]),
    )


def run_document(record: RunRecord) -> Json:
    """A stored run (loaded whole: intervals, outputs and commands) as a bundle's run,
    without its id (with_id adds it, once the run is as it will be written)."""
    info = record.info
    return {
        "title": info.title,
        "status": record.status.value,
        "started_at": info.started_at,
        "finished_at": record.finished_at,
        "argv": list(info.argv),
        "plan_path": info.plan_path,
        "plan_text": info.plan_text,
        "wirespeed_version": info.wirespeed_version,
        "provenance": info.provenance,
        "expectations": info.expectations,
        "trials": [_outcome(o) for o in record.outcomes],
    }


# Written beside a run by the layers above the store (identity, verdict): a reader of
# the bundle gets them; wirespeed works them out again from the run itself.
DERIVED = ("identity", "verdict")


def with_id(run: Json) -> Json:
    """The run with its id: the digest of everything it holds but its id and what is
    derived from it."""
    content = {k: v for k, v in run.items() if k not in (*DERIVED, "id")}
    return {**run, "id": digest(content)}


def run_record(run: Mapping[str, Any], number: int) -> RunRecord:
    """A bundle's run as the store would give it back; `number` stands for its id."""
    return RunRecord.from_fields(run, number, tuple(_un_outcome(t) for t in run["trials"]))


# -- the file -----------------------------------------------------------------------------


def pack(runs: Sequence[Json], *, names: str) -> bytes:
    """The bundle of these runs (each with_id): gzip of the canonical JSON, with its
    digest. names: "pseudonyms" or "kept" (docs/json-format.md)."""
    body: Json = {
        "format": FORMAT,
        "version": VERSION,
        "written_by": f"wirespeed {__version__}",
        "names": names,
        "runs": list(runs),
    }
    document = {**body, "digest": digest(body)}
    return gzip.compress(canonical(document) + b"\n", compresslevel=9, mtime=0)


@dataclass(frozen=True)
class Bundle:
    name: str  # the file as the user named it
    runs: tuple[Json, ...]
    names: str
    written_by: str

    def records(self) -> list[RunRecord]:
        return [run_record(run, number) for number, run in enumerate(self.runs, start=1)]


def unpack(data: bytes, name: str, nothing: str = "nothing was imported") -> Bundle:
    """The bundle in `data` (read from the file `name`), checked whole: its format, its
    version, its digest and every run's id and content. BundleError says what is wrong,
    and `nothing` what became of it."""
    try:
        text = _decompressed(data)
    except (OSError, EOFError, zlib.error) as error:
        raise BundleError(
            f"{name}: not a whole bundle: its compressed data is cut short or damaged ({error})",
            hint=f"{nothing}; copy the file again from where it was made",
        ) from None
    try:
        document = json.loads(text)
    except (UnicodeDecodeError, ValueError) as error:
        raise BundleError(
            f"{name}: not a bundle: its content is not JSON ({error})", hint=nothing
        ) from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise BundleError(
            f'{name}: not a wirespeed bundle (no "format": "{FORMAT}")',
            hint=f"{nothing}; `wirespeed export RUN -o FILE{SUFFIX}` makes one",
        )
    version = document.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise BundleError(f"{name}: its format version {version!r} is not one", hint=nothing)
    if version > VERSION:
        by = document.get("written_by")
        raise BundleError(
            f"{name}: bundle format version {version} needs a newer wirespeed "
            f"(this is wirespeed {__version__}, which reads version {VERSION})"
            + (f"; it was written by {by}" if isinstance(by, str) else ""),
            hint=f"{nothing}; upgrade wirespeed to read it",
        )
    said = document.pop("digest", None)
    if said != digest(document):
        raise BundleError(
            f"{name}: the bundle was changed after it was written: its digest does not "
            "match its content",
            hint=f"{nothing}; export it again from the store it came from",
        )
    runs = document.get("runs")
    if not isinstance(runs, list):
        raise BundleError(f"{name}: holds no runs", hint=nothing)
    for index, run in enumerate(runs, start=1):
        _check_run(run, index, name, nothing)
    return Bundle(
        name=name,
        runs=tuple(runs),
        names=str(document.get("names")),
        written_by=str(document.get("written_by")),
    )


def _decompressed(data: bytes) -> bytes:
    out = bytearray()
    with gzip.GzipFile(fileobj=io.BytesIO(data)) as stream:
        while chunk := stream.read(1 << 20):
            out += chunk
            if len(out) > MAX_JSON_BYTES:
                raise OSError(f"more than {MAX_JSON_BYTES >> 30} GiB when decompressed")
    return bytes(out)


def _check_run(run: Any, index: int, name: str, nothing: str) -> None:
    where = f"{name}: run {index} of the bundle"
    if not isinstance(run, dict):
        raise BundleError(f"{where} is not an object", hint=nothing)
    if with_id(run).get("id") != run.get("id"):
        raise BundleError(f"{where} does not match its id", hint=f"{nothing}; export it again")
    try:
        run_record(run, index)
    except (LookupError, TypeError, ValueError, AttributeError) as error:
        raise BundleError(
            f"{where} cannot be read: {type(error).__name__}: {error}",
            hint=nothing,
        ) from None


# -- into a store -------------------------------------------------------------------------


@dataclass(frozen=True)
class Imported:
    bundle_run: str  # the run's id in the bundle
    run_id: int  # in the store
    new: bool  # False: the store held it already (an earlier import)


def stored_as(store: Store, bundle_run: str) -> int | None:
    """The store's run imported from the bundle run `bundle_run`, if any."""
    with store.reading() as conn:
        found = conn.execute(
            select(schema.runs.c.id)
            .where(schema.runs.c.origin == bundle_run)
            .order_by(schema.runs.c.id)
        ).first()
    return None if found is None else int(found[0])


def origin_of(store: Store, run_id: int) -> str | None:
    with store.reading() as conn:
        found = conn.execute(
            select(schema.runs.c.origin).where(schema.runs.c.id == run_id)
        ).scalar_one_or_none()
    return None if found is None else str(found)


def import_run(store: Store, run: Mapping[str, Any]) -> Imported:
    """One checked run of a bundle into the store, in one transaction: whole or not at
    all. A run imported before is not stored again."""
    from wirespeed.process_owner import process_owner

    bundle_run = str(run["id"])
    known = stored_as(store, bundle_run)
    if known is not None:
        return Imported(bundle_run, known, new=False)
    record = run_record(run, 0)
    owner = process_owner()

    new = True

    def work(conn: Any, retried: bool) -> int:
        nonlocal new
        # Again inside the transaction: another import of the bundle may have stored it
        # since (or this one, before an outage cut its answer off).
        again = conn.execute(
            select(schema.runs.c.id).where(schema.runs.c.origin == bundle_run)
        ).scalar_one_or_none()
        if again is not None:
            new = retried  # found on a retry: most likely this import's own commit
            return int(again)
        run_id = writing.insert_run(conn, record.info, owner, retried=False)
        for outcome in record.outcomes:
            writing.insert_outcome(conn, run_id, outcome, replace_failed=False, once=False)
        conn.execute(
            update(schema.runs)
            .where(schema.runs.c.id == run_id)
            .values(
                status=record.status.value,
                finished_at=record.finished_at,
                origin=bundle_run,
                # The argv as it was exported (writing masks passwords, which it has none of).
                argv=list(record.info.argv),
            )
        )
        return run_id

    run_id = store.write(work)
    return Imported(bundle_run, run_id, new=new)
