"""The JSON documents of `run --json`, `runs --json`, `check --json` and `lab status --json`.

One document per command on stdout, for scripts: each names its `format` and `version`,
as the report's JSON does (docs/json-format.md). A change that could break a reader (a
key renamed or removed, a meaning changed) raises the version; new keys may appear.

Version history (the same for all four formats):
    1  wirespeed 0.1.0: first version
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from wirespeed.cli.env import Environment

if TYPE_CHECKING:
    from wirespeed.lab.lab import LabInfo
    from wirespeed.lab.topology import Node
    from wirespeed.model import DirectionResult, Trial, TrialOutcome
    from wirespeed.plan.problems import Problem
    from wirespeed.store import RunStatus, RunSummary

VERSION = 1


def write_json(env: Environment, document: dict[str, Any]) -> None:
    """The document, indented, on stdout. orjson keeps non-ASCII text as it is (UTF-8),
    and refuses what JSON cannot hold (NaN) rather than writing invalid JSON."""
    import orjson

    env.stdout.write(orjson.dumps(document, option=orjson.OPT_INDENT_2).decode() + "\n")


def run_document(
    run_id: int,
    status: RunStatus,
    outcomes: Sequence[TrialOutcome],
    store: str,
    expectations: dict[str, Any],
) -> dict[str, Any]:
    """What `run --json` prints: the run, each trial's status and goodput. The table
    with its statistics, ceilings and notes is the report's JSON (`report RUN --format
    json`), which this names rather than repeats."""
    return {
        "format": "wirespeed-run",
        "version": VERSION,
        "run": run_id,
        "status": status.value,
        "store": store,
        "trials_ok": sum(1 for o in outcomes if o.status.value == "ok"),
        "trials_failed": sum(1 for o in outcomes if o.status.value == "failed"),
        "trials": [_trial_outcome(outcome) for outcome in outcomes],
        # What the exit status 5 stands on, for a CI gate that reads the document.
        "expectations": expectations,
        "report": f"wirespeed report {run_id} --format json",
    }


def _trial_outcome(outcome: TrialOutcome) -> dict[str, Any]:
    result = outcome.result
    directions = result.directions if result is not None else ()
    document = {
        **_trial(outcome.trial),
        "status": outcome.status.value,
        "reason": outcome.reason,
        "flows": [_flow(direction) for direction in directions],
    }
    if not outcome.trial.test.yields_flows:
        # A benchmark's or a search's figures: its measurements, as the report's trials have them.
        document["measurements"] = [
            {"name": m.name, "labels": dict(m.labels), "unit": m.unit, "value": m.value}
            for m in (result.measurements if result is not None else ())
        ]
    return document


def _trial(trial: Trial) -> dict[str, Any]:
    return {
        "key": trial.key,
        "test_id": trial.test.id,
        "test_name": trial.test.name,
        "path": trial.path.name,
        "variant": trial.variant,
        "repetition": trial.repetition,
    }


def _flow(direction: DirectionResult) -> dict[str, Any]:
    source = direction.goodput_source
    return {
        "flow": direction.flow.value,
        "goodput_bps": direction.goodput_bps,
        "goodput_source": source.value if source is not None else None,
        "loss_percent": direction.udp.loss_percent if direction.udp is not None else None,
    }


def runs_document(runs: Iterable[RunSummary], store: str) -> dict[str, Any]:
    """What `runs --json` prints: every run in the store, oldest first."""
    return {
        "format": "wirespeed-runs",
        "version": VERSION,
        "store": store,
        "runs": [
            {
                "id": run.id,
                "title": run.title,
                "started_at": run.started_at,
                "finished_at": run.finished_at,
                "status": run.status.value,
                "trials_ok": run.trials_ok,
                "trials_failed": run.trials_failed,
                "paths": list(run.paths),
            }
            for run in runs
        ],
    }


def check_document(
    plan: str, errors: Sequence[Problem], warnings: Sequence[Problem], trials: Sequence[Trial]
) -> dict[str, Any]:
    """What `check --json` prints: the plan's problems with their positions, and the
    trials it would run (none when it has errors)."""
    return {
        "format": "wirespeed-check",
        "version": VERSION,
        "plan": plan,
        "valid": not errors,
        "problems": [_problem(p, "error") for p in errors]
        + [_problem(p, "warning") for p in warnings],
        "traffic_seconds": float(sum(t.test.spec.duration for t in trials)),
        "trials": [
            {
                **_trial(trial),
                "tool": str(trial.test.tool),
                "protocol": trial.test.spec.protocol.value,
                "direction": trial.test.spec.direction.value,
                "duration": trial.test.spec.duration,
            }
            for trial in trials
        ],
    }


def _problem(problem: Problem, severity: str) -> dict[str, Any]:
    return {
        "file": problem.source,
        "line": problem.line,
        "column": problem.column,
        "severity": severity,
        "message": problem.message,
        "hint": problem.hint,
    }


def lab_status_document(labs: Iterable[LabInfo]) -> dict[str, Any]:
    """What `lab status --json` prints: every wirespeed lab on this machine."""
    return {
        "format": "wirespeed-lab-status",
        "version": VERSION,
        "labs": [_lab(info) for info in labs],
    }


def _lab(info: LabInfo) -> dict[str, Any]:
    from wirespeed.lab.limits import ring_packets
    from wirespeed.lab.naming import parse_namespace
    from wirespeed.lab.record import describe_owner, owner_alive

    link = info.link
    owner = None
    if info.owner is not None:
        pid, _, _ = info.owner.partition(":")
        alive = owner_alive(info.owner)
        owner = {
            "pid": int(pid) if pid.isdigit() else None,
            "alive": alive,
            "command": describe_owner(info.owner) if alive else None,
        }
    return {
        "name": info.name,
        "complete": info.complete,
        "topology": info.topology.value if info.topology is not None else None,
        "link": None
        if link is None
        else {"name": link.name, "rate_bps": link.rate_bps, "mtu": link.mtu, "queue": link.queue},
        "mtu": info.mtu,
        "dut_access": info.dut_access,
        "limit": None
        if info.limit is None
        else {
            "label": info.limit.label,
            "pps": info.limit.pps,
            "bps": info.limit.bps,
            # The packets its ring holds: its own, the queue's or the lab's default.
            "ring": None
            if info.link is None
            else ring_packets(info.limit, info.link, info.mtu or info.link.mtu),
        },
        "owner": owner,
        "namespaces": [
            {
                "name": namespace,
                "node": _node(parse_namespace(namespace)),
                "interfaces": [
                    {"name": name, "addresses": list(addresses)}
                    for name, addresses in info.addresses.get(namespace, {}).items()
                ],
            }
            for namespace in info.namespaces
        ],
    }


def _node(parsed: tuple[str, Node] | None) -> str | None:
    """client, dut, server or switch: the part of the lab a namespace is."""
    return parsed[1].value if parsed is not None else None
