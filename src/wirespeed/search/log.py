"""One search cell (a frame size, a direction) as wirespeed keeps it: the search log.

The log is the search's raw output, kept with the trial's other raw outputs (format
"json", argv starting with SEARCH_ARGV0), so that reports can redraw every trial of the
search and the measurements can be derived again. Its JSON:

    {"format": "wirespeed-search", "version": 1, "algorithm": "mlrsearch",
     "frame": 64, "direction": "up", "link_rate_bps": 1000000000 | null,
     "ceiling_pps": 1488095.2 | null, "generator_ceiling_pps": 181000.0 | null,
     "stopped": null | "why",
     "goals": [{"name": "NDR", "loss_ratio": 0.0, "exceed_ratio": 0.5,
                "final_duration": 10.0, "duration_sum": null, "width": 0.01,
                "lower": 14850.0, "upper": 15000.0, "conditional_throughput": 14850.0,
                "generator_limited": false}, ...],
     "trials": [{"intended": 15000.0, "duration": 1.0, "offered_duration": 1.0,
                 "legs": 1, "sent": 15000, "received": 14990,
                 "counters": {"tx": 15003, "rx": 14993, "socket_drops": 0} | null,
                 "interfaces": {"tx": 15007, "rx": 14995} | null}, ...]}

`intended` is per leg (per direction: `both` has two legs), `sent` and `received` count
every leg together; `offered_duration` is how long the generator could send (iperf2
keeps hundredths of a second), which its offered load is judged against. Logs written
before these two were kept read as one leg sending for the whole duration.

`counters` are the UDP datagrams the generator's host sent, those the receiver's host
saw arrive, and those its socket then dropped, over the trial (/proc/net/snmp of the
lab's namespaces): the socket's drops are the receiver's, not the device's, and are
added back to iperf's count; null on real hosts, where iperf's count stands alone.

`interfaces` are the packets that left the sender's network interfaces and those that
came in at the receiver's over the trial (/proc/net/dev, loopback left out), on every
host that has the file, real or emulated: what crossed the wire at both ends. A host's
other traffic only adds to them, so they bound iperf's counts from above: fewer packets
out than iperf wrote were dropped in the sending host (its queue), never offered to the
device; more datagrams received than packets came in cannot be true. Absent from logs
written before they were kept.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from wirespeed.model import ModelError
from wirespeed.search.model import Goal, GoalResult, SearchResult, TrialResult

FORMAT = "wirespeed-search"
VERSION = 1
SEARCH_ARGV0 = "wirespeed-search"  # argv[0] of the raw output that holds a search log
# A bound this close to the link's ceiling is at it (the ceiling is computed in floats).
CEILING_SLACK = 1e-6


@dataclass(frozen=True)
class Counters:
    """UDP datagrams over one trial: sent by the generator's host, arrived at the
    receiver's (iperf's final datagram and its repeats included), and of those dropped
    by its busy socket."""

    tx: int
    rx: int
    socket_drops: int = 0


@dataclass(frozen=True)
class InterfaceCounts:
    """Packets over one trial: out of the sender's network interfaces, into the
    receiver's (summed over the legs of a direction; loopback not counted)."""

    tx: int
    rx: int


@dataclass(frozen=True)
class SearchLog:
    """One search cell: where and how it ran, and what it found."""

    frame: int  # bytes with FCS
    direction: str  # as the plan wrote it: up, down, both, in, out
    result: SearchResult
    link_rate_bps: int | None  # None: an unshaped link has no frame-rate ceiling
    ceiling_pps: float | None  # the link's frames/s at this size, per direction
    counters: tuple[Counters | None, ...] = ()  # one per trial of result.trials, or ()
    interfaces: tuple[InterfaceCounts | None, ...] = ()  # likewise

    def argv(self) -> tuple[str, ...]:
        return (SEARCH_ARGV0, "--frame", str(self.frame), "--direction", self.direction)

    def at_least(self, result: GoalResult) -> bool:
        """Whether the goal's figure is a lower bound only: no load up to it lost too
        much, and the search could go no higher though the link carries more (the
        plan's max_rate, or what the generator could send, stopped it there). At the
        link's frame-rate ceiling the figure is the line rate itself."""
        if result.lower is None or result.upper is not None:
            return False
        return self.ceiling_pps is None or result.lower < self.ceiling_pps * (1 - CEILING_SLACK)

    def trials_counted(
        self,
    ) -> tuple[tuple[TrialResult, Counters | None, InterfaceCounts | None], ...]:
        """Each trial with its hosts' UDP counters and interface counts (None where not
        kept)."""
        missing = (None,) * len(self.result.trials)
        return tuple(
            zip(
                self.result.trials,
                self.counters or missing,
                self.interfaces or missing,
                strict=True,
            )
        )


def _goal_json(result: GoalResult) -> dict[str, Any]:
    goal = result.goal
    return {
        "name": goal.name,
        "loss_ratio": goal.loss_ratio,
        "exceed_ratio": goal.exceed_ratio,
        "final_duration": goal.final_duration,
        "duration_sum": goal.duration_sum,
        "width": goal.width,
        "lower": result.lower,
        "upper": result.upper,
        "conditional_throughput": result.conditional_throughput,
        "generator_limited": result.generator_limited,
    }


def to_json(log: SearchLog) -> str:
    trials = [
        {
            "intended": trial.intended,
            "duration": trial.duration,
            "offered_duration": trial.offered_duration,
            "legs": trial.legs,
            "sent": trial.sent,
            "received": trial.received,
            "counters": None
            if counted is None
            else {"tx": counted.tx, "rx": counted.rx, "socket_drops": counted.socket_drops},
            "interfaces": None if wire is None else {"tx": wire.tx, "rx": wire.rx},
        }
        for trial, counted, wire in log.trials_counted()
    ]
    document = {
        "format": FORMAT,
        "version": VERSION,
        "algorithm": log.result.algorithm,
        "frame": log.frame,
        "direction": log.direction,
        "link_rate_bps": log.link_rate_bps,
        "ceiling_pps": log.ceiling_pps,
        "generator_ceiling_pps": log.result.generator_ceiling,
        "stopped": log.result.stopped,
        "goals": [_goal_json(goal) for goal in log.result.goals],
        "trials": trials,
    }
    return json.dumps(document, indent=1)


def _number(value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ModelError(f"search log: expected a number, got {value!r}")
    return float(value)


def _goal_from(entry: Mapping[str, Any]) -> GoalResult:
    goal = Goal(
        name=str(entry["name"]),
        loss_ratio=float(entry["loss_ratio"]),
        exceed_ratio=float(entry["exceed_ratio"]),
        final_duration=float(entry["final_duration"]),
        duration_sum=_number(entry.get("duration_sum")),
        width=float(entry["width"]),
    )
    return GoalResult(
        goal=goal,
        lower=_number(entry.get("lower")),
        upper=_number(entry.get("upper")),
        conditional_throughput=_number(entry.get("conditional_throughput")),
        generator_limited=bool(entry.get("generator_limited", False)),
    )


def from_json(text: str) -> SearchLog:
    """A search log back from its JSON; ModelError if it is not one."""
    try:
        document = json.loads(text)
        if document.get("format") != FORMAT or document.get("version") != VERSION:
            raise ModelError(f"not a {FORMAT} log of version {VERSION}")
        trials: list[TrialResult] = []
        counters: list[Counters | None] = []
        interfaces: list[InterfaceCounts | None] = []
        for entry in document["trials"]:
            trials.append(
                TrialResult(
                    intended=float(entry["intended"]),
                    duration=float(entry["duration"]),
                    sent=int(entry["sent"]),
                    received=int(entry["received"]),
                    offered_duration=_number(entry.get("offered_duration")),
                    legs=int(entry.get("legs", 1)),
                )
            )
            counted = entry.get("counters")
            counters.append(
                None
                if counted is None
                else Counters(
                    int(counted["tx"]), int(counted["rx"]), int(counted.get("socket_drops", 0))
                )
            )
            wire = entry.get("interfaces")
            interfaces.append(
                None if wire is None else InterfaceCounts(int(wire["tx"]), int(wire["rx"]))
            )
        result = SearchResult(
            goals=tuple(_goal_from(goal) for goal in document["goals"]),
            trials=tuple(trials),
            algorithm=str(document["algorithm"]),
            generator_ceiling=_number(document.get("generator_ceiling_pps")),
            stopped=document.get("stopped"),
        )
        rate = document.get("link_rate_bps")
        return SearchLog(
            frame=int(document["frame"]),
            direction=str(document["direction"]),
            result=result,
            link_rate_bps=None if rate is None else int(rate),
            ceiling_pps=_number(document.get("ceiling_pps")),
            counters=tuple(counters),
            interfaces=tuple(interfaces) if any(w is not None for w in interfaces) else (),
        )
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise ModelError(f"not a readable search log: {error}") from None
