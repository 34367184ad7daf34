"""What makes two figures comparable (their comparison key): they measured the same thing
the same way — the same kind of test with the same options, direction and frame sizes,
over the same link and topology, with the same tool at the same major version. A figure
whose key differs from the first column's is never set beside it silently: compare says
which key differs (`not comparable: iperf2 2.1.8 vs iperf3 3.12`, `link fe vs gbe`).

How long a test ran, how its search was paced and how often it was repeated are not in
the key: they change a figure's spread, not what it is (a quick card against a full one
compares). Frame sizes and flows are part of a figure's labels, on which rows are
matched already. The configuration a device ran with (kernel, offloads, governor) is
not in the key either: it is what people compare, shown beside the figures
(configuration_differences).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields

from wirespeed.model import Measurement, Trial, TrialOutcome
from wirespeed.store.records import RunRecord

# A test's settings that say how long or how often, not what was measured.
_PACE = frozenset(
    {
        "duration",
        "interval",
        "until_stable",
        "initial_duration",
        "final_duration",
        "duration_sum",
        "max_trials",
        "width",
        "timeout",
        # Each figure of a search is labelled with its frame size and direction: rows
        # match on them already, whichever were searched beside.
        "frame_sizes",
        "directions",
    }
)
_VERSION = re.compile(r"(\d+)(?:\.\d+)*")


@dataclass(frozen=True)
class KeyPart:
    name: str  # "tool", "link", "topology", an option's name
    shown: str  # as a reader sees it: "iperf2 2.1.8", "fe"
    compared: object  # what must be equal: ("iperf2", "2")


def _tool_version(outcome: TrialOutcome, record: RunRecord) -> str | None:
    said = outcome.result.tool_version if outcome.result is not None else None
    if said is None:
        tool = str(outcome.trial.test.tool)
        for host in record.info.hosts:
            if host.name == outcome.trial.path.client and tool in host.tools:
                said = host.tools[tool]
    match = _VERSION.search(said or "")
    return match[0] if match else None


def key_of(outcome: TrialOutcome, record: RunRecord) -> tuple[KeyPart, ...]:
    """The key of a stored trial's figures, its tool's version from the trial or, where
    the tool did not say, from what the run found on the client."""
    return trial_key(outcome.trial, _tool_version(outcome, record))


def trial_key(trial: Trial, version: str | None) -> tuple[KeyPart, ...]:
    """The key of `trial`'s figures, measured with the tool at `version`."""
    test, path = trial.test, trial.path
    tool = str(test.tool)
    major = None if version is None else version.split(".")[0]
    parts = [
        KeyPart("tool", f"{tool} {version}" if version else tool, (tool, major)),
        KeyPart("topology", path.topology.value, path.topology.value),
    ]
    link = path.link
    parts.append(
        KeyPart(
            "link",
            "none" if link is None else link.name,
            None if link is None else (link.rate_bps, link.mtu),
        )
    )
    if path.tunnel is not None:
        tunnel = path.tunnel
        shown = tunnel.kind.value + (f" {tunnel.cipher}" if tunnel.cipher else "")
        parts.append(KeyPart("tunnel", shown, (tunnel.kind.value, tunnel.cipher, tunnel.proto)))
    options: Mapping[str, object]
    if test.bench is not None or test.search is not None:
        spec = test.options
        assert spec is not None
        options = spec.as_dict()
    else:
        options = {f.name: getattr(test.spec, f.name) for f in fields(test.spec)}
    for name in sorted(options):
        if name in _PACE:
            continue
        value = options[name]
        plain: object = value.value if isinstance(value, enum.Enum) else value
        parts.append(KeyPart(name, str(plain), repr(plain)))
    return tuple(parts)


@dataclass(frozen=True)
class SeriesKey:
    """One line of a trend: figures with the same comparison key (only what must be
    equal, so iperf 3.9 and 3.12 are one series) of the same measurement, with the same
    labels, on the same path, in the same variant."""

    compared: tuple[tuple[str, object], ...]  # each KeyPart's name and `compared`
    path: str
    variant: str
    name: str  # the measurement's
    labels: tuple[tuple[str, str], ...]

    def differences(self, other: SeriesKey) -> tuple[str, ...]:
        """What differs, by name (a key part's, or path, variant, name, labels): what a
        reader is told when figures are not one series."""
        mine, theirs = dict(self.compared), dict(other.compared)
        said = [n for n in mine if mine[n] != theirs.get(n)]
        said += [n for n in theirs if n not in mine]
        said += [
            n
            for n in ("path", "variant", "name", "labels")
            if getattr(self, n) != getattr(other, n)
        ]
        return tuple(said)


def series_key(trial: Trial, measurement: Measurement, version: str | None) -> SeriesKey:
    """The series `measurement` of `trial` belongs to, its tool at `version`."""
    return SeriesKey(
        compared=tuple((part.name, part.compared) for part in trial_key(trial, version)),
        path=trial.path.name,
        variant=trial.variant,
        name=measurement.name,
        labels=measurement.labels,
    )


def difference(first: Sequence[KeyPart], other: Sequence[KeyPart]) -> str | None:
    """Which parts of the key differ, as "iperf2 2.1.8 vs iperf3 3.12; link fe vs gbe";
    None when the two are comparable."""
    theirs = {part.name: part for part in other}
    said = []
    for part in first:
        other_part = theirs.pop(part.name, None)
        if other_part is None:
            said.append(f"{part.name} {part.shown} vs none")
        elif other_part.compared != part.compared:
            label = "" if part.name == "tool" else f"{part.name} "
            said.append(f"{label}{part.shown} vs {other_part.shown}")
    said += [f"{part.name} none vs {part.shown}" for part in theirs.values()]
    return "; ".join(said) or None


# The facts of a host shown beside the figures when they differ between columns.
CONFIGURATION = (
    ("machine", "board"),
    ("soc", "SoC"),
    ("os", "system"),
    ("release", "release"),
    ("kernel", "kernel"),
    ("governor", "governor"),
    ("nics", "NICs"),
    ("qdiscs", "qdiscs"),
    ("flow_offloading", "flow offloading"),
    ("firewall_rules", "firewall rules"),
    ("conntrack", "conntrack entries"),
    ("iperf2", "iperf2"),
    ("iperf3", "iperf3"),
)


def _dut_facts(record: RunRecord) -> Mapping[str, object]:
    hosts = record.info.provenance.get("hosts") or {}
    if not isinstance(hosts, Mapping):
        return {}
    facts = [f for f in hosts.values() if isinstance(f, Mapping)]
    duts = [f for f in facts if "dut" in str(f.get("role") or "")]
    chosen = (duts or facts or [{}])[0]
    gathered = chosen.get("identity")
    if not isinstance(gathered, Mapping):
        return chosen
    # The busybox identity's kernel is the bare release; provenance's says more.
    return {**{k: v for k, v in gathered.items() if k != "kernel"}, **chosen}


def _shown(value: object) -> str:
    """A fact as one line: a NIC's driver, version, firmware and offloads that are on."""
    if isinstance(value, Mapping):
        parts = []
        for name, item in sorted(value.items()):
            if isinstance(item, Mapping):
                said = [
                    str(item.get(k))
                    for k in ("driver", "driver_version", "firmware")
                    if item.get(k)
                ]
                offloads = item.get("offloads")
                if isinstance(offloads, Mapping):
                    said.append(
                        ",".join(k for k, v in sorted(offloads.items()) if v == "on")
                        or "no offloads"
                    )
                parts.append(f"{name} {' '.join(said)}")
            else:
                parts.append(f"{name} {item}")
        return "; ".join(parts)
    if isinstance(value, list | tuple):
        return "; ".join(str(v) for v in value)
    return str(value)


def configuration_facts(record: RunRecord) -> tuple[tuple[str, str], ...]:
    """The facts of the run's device (or its lab machine) that `compare` sets side by
    side, each as (label, one line; "?" where unknown), and whether it is a lab's or real."""
    facts = _dut_facts(record)
    said = [
        (label, _shown(facts.get(key)) if facts.get(key) is not None else "?")
        for key, label in CONFIGURATION
    ]
    said.append(("bench", "lab" if record.info.provenance.get("labs") else "real"))
    return tuple(said)


def configuration_differences(records: Sequence[RunRecord]) -> tuple[str, ...]:
    """What differs between the runs' devices (or their lab machine), one line each:
    "kernel: Linux 5.10.12 | Linux 6.1.0"; and whether each is a lab's or real."""
    every = [configuration_facts(r) for r in records]
    lines = []
    for index, (label, _) in enumerate(every[0] if every else ()):
        values = [facts[index][1] for facts in every]
        if len(set(values)) > 1:
            lines.append(f"{label}: {' | '.join(values)}")
    return tuple(lines)
