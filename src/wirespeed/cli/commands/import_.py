"""`wirespeed import FILE...`: saved iperf outputs into the store (or as JSON)."""

from __future__ import annotations

import argparse
import dataclasses
import enum
import json
import time
from pathlib import Path
from typing import Any

from wirespeed.cli.env import Environment
from wirespeed.cli.exit import ExitStatus
from wirespeed.errors import UsageError
from wirespeed.model import (
    PathSpec,
    RawOutput,
    Result,
    TestCase,
    TestSpec,
    Topology,
    Trial,
    TrialOutcome,
    TrialStatus,
)

IMPORT_JSON_VERSION = 1  # docs/json-format.md, "wirespeed-import"


def execute(args: argparse.Namespace, env: Environment) -> int:
    from wirespeed.tools.detect import detect, parse_any

    parsed: list[tuple[Path, str, Result, str, str]] = []
    problems: list[str] = []
    for name in args.files:
        path = Path(name)
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError as error:
            problems.append(f"{name}: cannot read: {error.strerror}")
            continue
        try:
            _tool, fmt, side = detect(text)
            result = parse_any(text)
        except (UsageError, ValueError) as error:
            problems.append(f"{name}: {getattr(error, 'message', error)}")
            continue
        parsed.append((path, text, result, fmt, side.value))
    if problems:
        raise UsageError(
            "; ".join(problems), hint="nothing was imported; fix or leave out those files"
        )
    if args.json:
        env.stdout.write(_as_json(parsed) + "\n")
        return ExitStatus.OK
    return _store(args, env, parsed)


def _store(
    args: argparse.Namespace, env: Environment, parsed: list[tuple[Path, str, Result, str, str]]
) -> int:
    from wirespeed import __version__
    from wirespeed.model import Side
    from wirespeed.store import RunInfo, Store

    store = Store.open(args.db)
    try:
        now = time.time()
        run_id = store.begin_run(
            RunInfo(
                title=args.title or f"import of {len(parsed)} file(s)",
                plan_path=None,
                plan_text="",
                argv=tuple(args.argv),
                started_at=now,
                wirespeed_version=__version__,
                provenance={"imported": [str(p) for p, *_ in parsed]},
            )
        )
        for index, (path, text, result, fmt, side) in enumerate(parsed, start=1):
            seconds = max(
                (m.seconds for d in result.directions for m in (d.sent, d.received) if m),
                default=1.0,
            )
            test = TestCase(
                id=str(index),
                name=path.name,
                tool=result.tool,
                spec=TestSpec(protocol=result.protocol, duration=max(seconds, 0.001)),
            )
            where = path.parent.name or "imported"
            trial = Trial(
                test=test,
                path=PathSpec(
                    name=where, topology=Topology.ENDPOINT, client="client", server="server"
                ),
            )
            raw = RawOutput(host="", side=Side(side), argv=(), format=fmt, text=text)
            ok = bool(result.directions)
            store.add_outcome(
                run_id,
                TrialOutcome(
                    trial=trial,
                    status=TrialStatus.OK if ok else TrialStatus.FAILED,
                    started_at=now,
                    finished_at=now,
                    result=result,
                    reason=None if ok else "the output holds no measurement",
                    raw=(raw,),
                ),
            )
        store.finish_run(run_id, "complete")
    finally:
        store.close()
    env.info(f"imported {len(parsed)} file(s) as run {run_id}; `wirespeed report {run_id}`")
    return ExitStatus.OK


def _plain(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _as_json(parsed: list[tuple[Path, str, Result, str, str]]) -> str:
    items = []
    for path, _text, result, fmt, side in parsed:
        body = _plain(dataclasses.asdict(result))
        for direction, data in zip(result.directions, body["directions"], strict=True):
            data["goodput_bps"] = direction.goodput_bps
            if direction.udp is not None:
                data["udp"]["loss_percent"] = direction.udp.loss_percent
        items.append({"file": str(path), "format": fmt, "side": side, "result": body})
    document = {"format": "wirespeed-import", "version": IMPORT_JSON_VERSION, "files": items}
    return json.dumps(document, indent=2)
