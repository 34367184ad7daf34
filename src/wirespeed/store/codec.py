"""Model objects to rows and JSON values, and back, losslessly.

Every encode has its decode next to it; tests check that an outcome comes back equal.
Interval series have a module of their own (packed_intervals.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from wirespeed.model import (
    BenchSpec,
    Better,
    Direction,
    Finding,
    FindingKind,
    Flow,
    LinkModel,
    Measurement,
    MonitorRecord,
    PathSpec,
    Probes,
    Proto,
    RawOutput,
    Side,
    TestSpec,
    Tool,
    ToolWarning,
    Topology,
    Transfer,
    TrialOutcome,
    TunnelEnds,
    TunnelKind,
    TunnelSpec,
    UdpStats,
    WarningKind,
    frozen_options,
)
from wirespeed.record_fields import fields, record_of

Row = Mapping[Any, Any]  # a database row (RowMapping) or a plain dict
Json = dict[str, Any]


def encode_spec(spec: TestSpec) -> Json:
    return {
        "protocol": spec.protocol.value,
        "duration": spec.duration,
        "direction": spec.direction.value,
        "parallel": spec.parallel,
        "window": spec.window,
        "rate": spec.rate,
        "length": spec.length,
        "mtu": spec.mtu,
        "interval": spec.interval,
        # Only when set: a spec without probes keeps the text older versions wrote.
        **({} if spec.probes is None else {"probes": spec.probes.value}),
        **({} if spec.congestion is None else {"congestion": spec.congestion}),
        **({"until_stable": True} if spec.until_stable else {}),
    }


def decode_spec(data: Mapping[str, Any]) -> TestSpec:
    return record_of(
        TestSpec,
        data,
        protocol=Proto(data["protocol"]),
        direction=Direction(data["direction"]),
        probes=None if data.get("probes") is None else Probes(data["probes"]),
        congestion=data.get("congestion"),
        until_stable=bool(data.get("until_stable", False)),
    )


def encode_link(link: LinkModel | None) -> Json | None:
    if link is None:
        return None
    queue = {} if link.queue is None else {"queue": link.queue}
    return {**fields(link, ("name", "rate_bps", "mtu")), **queue}


def decode_link(data: Mapping[str, Any] | None) -> LinkModel | None:
    if data is None:
        return None
    return record_of(LinkModel, data, queue=data.get("queue"))


def encode_tunnel(tunnel: TunnelSpec) -> Json:
    return {
        "kind": tunnel.kind.value,
        "ends": tunnel.ends.value,
        "tun_mtu": tunnel.tun_mtu,
        "fragment": tunnel.fragment,
        "mssfix": tunnel.mssfix,
        "cipher": tunnel.cipher,
        "proto": tunnel.proto.value,
    }


def encode_path(
    path: PathSpec,
    link: Callable[[LinkModel | None], Any] = encode_link,
    tunnel: Callable[[TunnelSpec], Any] = encode_tunnel,
) -> Json:
    """A path's fields; `link` and `tunnel` write those two (the reports' JSON says them
    otherwise than the store keeps them)."""
    return {
        "name": path.name,
        "topology": path.topology.value,
        "client": path.client,
        "server": path.server,
        "dut": path.dut,
        "link": link(path.link),
        **({"tunnel": tunnel(path.tunnel)} if path.tunnel is not None else {}),
    }


def decode_tunnel(data: Mapping[str, Any] | None) -> TunnelSpec | None:
    if data is None:
        return None
    return record_of(
        TunnelSpec,
        data,
        kind=TunnelKind(data["kind"]),
        ends=TunnelEnds(data["ends"]),
        proto=Proto(data["proto"]),
    )


def encode_outcome(outcome: TrialOutcome, test: Any, path: Any) -> Json:
    """A trial's key, its test and path as written (`test`, `path`), and how it went: the
    head of a trial's record in a bundle and in the reports' JSON."""
    trial = outcome.trial
    return {
        "key": trial.key,
        "test": test,
        "path": path,
        "variant": trial.variant,
        "repetition": trial.repetition,
        "status": outcome.status.value,
        "reason": outcome.reason,
        "started_at": outcome.started_at,
        "finished_at": outcome.finished_at,
    }


def decode_path(data: Mapping[str, Any]) -> PathSpec:
    return PathSpec(
        name=data["name"],
        topology=Topology(data["topology"]),
        client=data["client"],
        server=data["server"],
        dut=data["dut"],
        link=decode_link(data["link"]),
        tunnel=decode_tunnel(data.get("tunnel")),  # runs stored before tunnels have none
    )


def encode_measurements(
    sent: Transfer | None, received: Transfer | None
) -> dict[str, int | float | None]:
    row: dict[str, int | float | None] = {}
    for prefix, m in (("sent", sent), ("received", received)):
        row[f"{prefix}_bytes"] = None if m is None else m.bytes
        row[f"{prefix}_seconds"] = None if m is None else m.seconds
        row[f"{prefix}_bps"] = None if m is None else m.bits_per_second
    return row


def decode_measurement(row: Row, prefix: str) -> Transfer | None:
    if row[f"{prefix}_bytes"] is None:
        return None
    return Transfer(
        bytes=row[f"{prefix}_bytes"],
        seconds=row[f"{prefix}_seconds"],
        bits_per_second=row[f"{prefix}_bps"],
    )


def encode_udp(udp: UdpStats | None) -> dict[str, Any]:
    if udp is None:
        return {"has_udp": False}
    return {
        "has_udp": True,
        **fields(udp, ("jitter_ms", "lost", "packets", "loss_percent", "out_of_order")),
    }


def decode_udp(row: Row) -> UdpStats | None:
    if not row["has_udp"]:
        return None
    return UdpStats(
        jitter_ms=row["jitter_ms"],
        lost=row["lost"],
        packets=row["packets"],
        out_of_order=row["out_of_order"],
    )


def encode_raw(raw: RawOutput) -> dict[str, Any]:
    return {
        "host": raw.host,
        "side": raw.side.value,
        "argv": list(raw.argv),
        "format": raw.format,
        "text": raw.text,
        "stderr": raw.stderr,
        "exit_status": raw.exit_status,
    }


def decode_raw(row: Row) -> RawOutput:
    return RawOutput(
        host=row["host"],
        side=Side(row["side"]),
        argv=tuple(row["argv"]),
        format=row["format"],
        text=row["text"],
        stderr=row["stderr"],
        exit_status=row["exit_status"],
    )


def encode_monitor(monitor: MonitorRecord) -> dict[str, Any]:
    return fields(monitor, ("host", "role", "interval", "partial", "reason", "summary", "raw"))


def decode_monitor(row: Row) -> MonitorRecord:
    return MonitorRecord(
        host=row["host"],
        role=row["role"],
        interval=row["interval"],
        raw=row["raw"],
        summary=row["summary"],
        partial=bool(row["partial"]),
        reason=row["reason"],
    )


def encode_finding(finding: Finding) -> dict[str, Any]:
    return {
        "kind": finding.kind.value,
        "flow": None if finding.flow is None else finding.flow.value,
        "message": finding.message,
    }


def decode_finding(row: Row) -> Finding:
    flow = row["flow"]
    return Finding(
        kind=FindingKind(row["kind"]),
        message=row["message"],
        flow=None if flow is None else Flow(flow),
    )


def decode_warning(row: Row) -> ToolWarning:
    return ToolWarning(kind=WarningKind(row["kind"]), message=row["message"])


def decode_flow(value: str) -> Flow:
    return Flow(value)


def decode_tool(value: str) -> Tool:
    """A stored tool is its text: it loads whichever kinds this version has (one it has
    not is said when its kind is asked for: trial_kind.UnknownToolError)."""
    return Tool(value)


def encode_bench(bench: BenchSpec | None) -> Json | None:
    if bench is None:
        return None
    return {"options": bench.as_dict(), "timeout": bench.timeout}


def decode_bench(data: Mapping[str, Any]) -> BenchSpec:
    options = data.get("options") or {}
    return BenchSpec(options=frozen_options(dict(options)), timeout=data.get("timeout"))


def encode_measurement(measurement: Measurement) -> dict[str, Any]:
    return {
        "name": measurement.name,
        "unit": measurement.unit,
        "better": measurement.better.value,
        "value": measurement.value,
        "labels": [list(pair) for pair in measurement.labels],
    }


def decode_measurement_row(row: Row) -> Measurement:
    return Measurement(
        name=row["name"],
        unit=row["unit"],
        better=Better(row["better"]),
        value=float(row["value"]),
        labels=tuple((str(k), str(v)) for k, v in row["labels"]),
    )
