"""`wirespeed import FILE...`: saved iperf outputs into the store (or as JSON), or
bundles (`wirespeed export`) with their runs whole."""

from __future__ import annotations

import argparse
import dataclasses
import enum
import json
import os
import stat
import time
from pathlib import Path
from typing import Any

from wirespeed.cli.env import Environment
from wirespeed.cli.exit import ExitStatus
from wirespeed.errors import UsageError
from wirespeed.model import (
    PathSpec,
    Proto,
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


# A saved iperf output is kilobytes (an hour of -i 1 reports of 128 streams: about
# 60 MB); anything larger is not one, and reading it whole could exhaust the memory
# (/dev/zero never ends). Regular files are refused by their size, without reading them.
MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_FILE_TEXT = "64 MiB"


@dataclasses.dataclass(frozen=True)
class _Parsed:
    """One test read from a file: a server's log of several tests gives several."""

    path: Path
    test: int  # 1-based, within its file
    tests: int  # how many tests the file holds
    text: str  # this test's part of the file
    result: Result
    format: str
    side: str

    @property
    def name(self) -> str:
        return self.path.name if self.tests == 1 else f"{self.path.name} #{self.test}"


class _Unreadable(Exception):
    """A file that cannot be read as a saved output; its message names why."""


def read_bounded(path: Path) -> str:
    """The file's text, refused past MAX_FILE_BYTES: by its size if it is a regular file,
    by reading at most one byte more otherwise (a device, a pipe, /proc)."""
    try:
        with path.open("rb") as stream:
            if stat.S_ISREG(os.fstat(stream.fileno()).st_mode):
                size = os.fstat(stream.fileno()).st_size
                if size > MAX_FILE_BYTES:
                    raise _Unreadable(
                        f"{size / 2**20:.0f} MiB, larger than a saved iperf output can be "
                        f"(at most {MAX_FILE_TEXT})"
                    )
            data = stream.read(MAX_FILE_BYTES + 1)
    except OSError as error:
        raise _Unreadable(f"cannot read: {error.strerror or error}") from error
    if len(data) > MAX_FILE_BYTES:
        raise _Unreadable(f"more than {MAX_FILE_TEXT}: not a saved iperf output")
    return data.decode("utf-8", errors="replace")


def _no_measurement(result: Result) -> str:
    said = next((w.message for w in result.warnings), None)
    return "holds no measurement" + (f" ({said})" if said else "")


# A bundle is gzip (RFC 1952): its first two bytes.
GZIP_MAGIC = b"\x1f\x8b"
# A bundle of a long soak with every sampler's stream is tens of MB compressed.
MAX_BUNDLE_BYTES = 1024**3


def _is_bundle(path: Path) -> bool:
    from wirespeed.store.bundle import SUFFIX

    if path.suffix == SUFFIX:
        return True
    try:
        with path.open("rb") as stream:
            return stream.read(2) == GZIP_MAGIC
    except OSError:
        return False


def execute(args: argparse.Namespace, env: Environment) -> int:
    from wirespeed.tools.detect import detect, parse_all

    bundles = [_is_bundle(Path(name)) for name in args.files]
    if any(bundles):
        if not all(bundles):
            outputs = [n for n, b in zip(args.files, bundles, strict=True) if not b]
            raise UsageError(
                f"bundles and saved tool outputs in one import: {', '.join(outputs)} "
                "is not a bundle",
                hint="import the bundles (.wsr) and the saved outputs in two commands",
            )
        return _import_bundles(args, env)

    parsed: list[_Parsed] = []
    problems: list[str] = []
    for name in args.files:
        path = Path(name)
        try:
            text = read_bounded(path)
            _tool, fmt, side = detect(text)
            tests = parse_all(text)
        except _Unreadable as error:
            problems.append(f"{name}: {error}")
            continue
        except (UsageError, ValueError) as error:
            problems.append(f"{name}: {getattr(error, 'message', error)}")
            continue
        for index, (part, result) in enumerate(tests, start=1):
            where = name if len(tests) == 1 else f"{name} (test {index} of {len(tests)})"
            if not result.directions:
                problems.append(f"{where}: {_no_measurement(result)}")
                continue
            parsed.append(_Parsed(path, index, len(tests), part, result, fmt, side.value))
    if problems:
        raise UsageError(
            "; ".join(problems), hint="nothing was imported; fix or leave out those files"
        )
    if args.json:
        env.stdout.write(_as_json(parsed) + "\n")
        return ExitStatus.OK
    return _store(args, env, parsed)


def _store(args: argparse.Namespace, env: Environment, parsed: list[_Parsed]) -> int:
    from wirespeed import __version__
    from wirespeed.model import Side
    from wirespeed.store import RunInfo, Store

    store = Store.open(args.db)
    try:
        now = time.time()
        run_id = store.begin_run(
            RunInfo(
                title=args.title or f"import of {_files(parsed)} file(s)",
                plan_path=None,
                plan_text="",
                argv=tuple(args.argv),
                started_at=now,
                wirespeed_version=__version__,
                provenance={"imported": list(dict.fromkeys(str(p.path) for p in parsed))},
            )
        )
        for index, item in enumerate(parsed, start=1):
            result = item.result
            seconds = max(
                (m.seconds for d in result.directions for m in (d.sent, d.received) if m),
                default=1.0,
            )
            test = TestCase(
                id=str(index),
                name=item.name,
                tool=result.tool,
                spec=TestSpec(protocol=result.protocol or Proto.TCP, duration=max(seconds, 0.001)),
            )
            where = item.path.parent.name or "imported"
            trial = Trial(
                test=test,
                path=PathSpec(
                    name=where, topology=Topology.ENDPOINT, client="client", server="server"
                ),
            )
            raw = RawOutput(
                host="", side=Side(item.side), argv=(), format=item.format, text=item.text
            )
            store.add_outcome(
                run_id,
                TrialOutcome(
                    trial=trial,
                    status=TrialStatus.OK,
                    started_at=now,
                    finished_at=now,
                    result=result,
                    reason=None,
                    raw=(raw,),
                ),
            )
        store.finish_run(run_id, "complete")
    finally:
        store.close()
    tests = f" ({len(parsed)} tests)" if len(parsed) != _files(parsed) else ""
    env.info(
        f"imported {_files(parsed)} file(s){tests} as run {run_id}; `wirespeed report {run_id}`"
    )
    return ExitStatus.OK


def _import_bundles(args: argparse.Namespace, env: Environment) -> int:
    """Every bundle read and checked whole before anything is stored; then each run in
    one transaction, once (a run imported before is named, not stored again)."""
    from wirespeed.store import Store
    from wirespeed.store.bundle import Bundle, import_run, unpack

    for option, given in (("--json", args.json), ("--title", args.title)):
        if given:
            raise UsageError(
                f"{option} is for saved tool outputs; a bundle keeps its runs as they were",
                hint=f"leave out {option}",
            )
    read: list[Bundle] = []
    for name in args.files:
        path = Path(name)
        try:
            with path.open("rb") as stream:
                data = stream.read(MAX_BUNDLE_BYTES + 1)
        except OSError as error:
            raise UsageError(
                f"{name}: cannot read: {error.strerror or error}", hint="nothing was imported"
            ) from None
        if len(data) > MAX_BUNDLE_BYTES:
            raise UsageError(
                f"{name}: larger than a bundle can be (1 GiB)", hint="nothing was imported"
            )
        read.append(unpack(data, name))
    store = Store.open(args.db)
    try:
        for bundle in read:
            for run in bundle.runs:
                done = import_run(store, run)
                short = done.bundle_run.removeprefix("sha256:")[:12]
                if done.new:
                    env.info(
                        f"{bundle.name}: run {short} imported as run {done.run_id}; "
                        f"`wirespeed report {done.run_id}`"
                    )
                else:
                    env.info(f"{bundle.name}: run {short} is stored already, as run {done.run_id}")
    finally:
        store.close()
    return ExitStatus.OK


def _files(parsed: list[_Parsed]) -> int:
    return len({item.path for item in parsed})


def _plain(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _as_json(parsed: list[_Parsed]) -> str:
    items = []
    for item in parsed:
        result = item.result
        body = _plain(dataclasses.asdict(result))
        for direction, data in zip(result.directions, body["directions"], strict=True):
            data["goodput_bps"] = direction.goodput_bps
            if direction.udp is not None:
                data["udp"]["loss_percent"] = direction.udp.loss_percent
        items.append(
            {
                "file": str(item.path),
                "test": item.test,
                "format": item.format,
                "side": item.side,
                "result": body,
            }
        )
    document = {"format": "wirespeed-import", "version": IMPORT_JSON_VERSION, "files": items}
    return json.dumps(document, indent=2)
