"""A run's provenance in words, one short line per item: 'lab demo-bridge: bridge
topology, link gbe: 1 Gbit/s shaped (tbf), MTU 1500, DUT in its namespace'.

The store keeps the provenance as the runner, import or spool recorded it (its keys are
theirs; the JSON export gives it as it is). Known items are said in words; an item this
module does not know yet is still shown, its key's underscores as spaces; empty items
(a variant that changes nothing) are left out.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from wirespeed.analysis.ceiling import link_rate_text
from wirespeed.units import format_delay

DUT_ACCESS = {
    "netns": "DUT in its namespace",
    "ssh": "DUT over SSH (dropbear + busybox in its namespace)",
}


def _plain(value: Any) -> str:
    if isinstance(value, Mapping):
        return ", ".join(f"{_key(k)} {_plain(v)}" for k, v in value.items() if v is not None)
    if isinstance(value, list | tuple):
        return ", ".join(_plain(v) for v in value)
    return str(value)


def _key(key: object) -> str:
    return str(key).replace("_", " ")


def _lab(name: str, facts: Mapping[str, Any]) -> str:
    parts = []
    if facts.get("topology"):
        parts.append(f"{facts['topology']} topology")
    rate = facts.get("rate_bps")
    link = []
    if isinstance(rate, int) and rate > 0:
        link.append(f"{link_rate_text(rate)} shaped (tbf)")
    elif "rate_bps" in facts:
        link.append("unshaped")
    if facts.get("mtu"):
        link.append(f"MTU {facts['mtu']}")
    if link or facts.get("link"):
        called = f" {facts['link']}" if facts.get("link") else ""
        parts.append(f"link{called}: " + ", ".join(link) if link else f"link{called}")
    queue = facts.get("queue")
    if isinstance(queue, int | float) and queue > 0:
        parts.append(f"bottleneck queue {format_delay(queue)}")
    if facts.get("server_address"):
        parts.append(f"server at {facts['server_address']}")
    access = facts.get("dut_access")
    if access:
        parts.append(DUT_ACCESS.get(str(access), f"DUT over {access}"))
    known = {"topology", "link", "rate_bps", "mtu", "queue", "server_address", "dut_access"}
    parts += [f"{_key(k)} {_plain(v)}" for k, v in facts.items() if k not in known and v]
    return f"lab {name}: " + ", ".join(parts)


_VARIANT_WORDS: dict[str, Callable[[Any], str]] = {
    "mtu": lambda v: f"MTU {v}",
    "rps": lambda v: f"RPS mask {v}",
    "xps": lambda v: f"XPS mask {v}",
    "offloads": lambda v: (
        "offloads "
        + (", ".join(f"{k} {s}" for k, s in v.items()) if isinstance(v, Mapping) else str(v))
    ),
}


def _variant(name: str, state: Mapping[str, Any]) -> str | None:
    said = [
        _VARIANT_WORDS[k](v) if k in _VARIANT_WORDS else f"{_key(k)} {_plain(v)}"
        for k, v in state.items()
        if v not in (None, "", {}, [])
    ]
    return f"variant {name}: " + ", ".join(said) if said else None


def _items(key: str, value: Any) -> list[str]:
    if key == "labs" and isinstance(value, Mapping):
        return [_lab(str(n), f) for n, f in value.items() if isinstance(f, Mapping)]
    if key == "variants" and isinstance(value, Mapping):
        said = [_variant(str(n), s) for n, s in value.items() if isinstance(s, Mapping)]
        return [line for line in said if line]
    if key == "recovered" and value:
        return [f"before the run: {_plain(value)}"]
    if key == "labels" and isinstance(value, Mapping) and value:
        # As the user wrote them (`run --label firmware=23.05.3`), so they can be typed
        # back into `trend --by` and `--baseline`.
        return ["labels: " + ", ".join(f"{k}={v}" for k, v in value.items())]
    if key == "imported" and value:
        return [f"imported from {_plain(value)}"]
    if key == "spool" and isinstance(value, Mapping):
        return [f"trials kept for run {value.get('run')} of {value.get('store')}"]
    if value in (None, "", {}, []):
        return []
    if isinstance(value, Mapping) and all(isinstance(v, Mapping) for v in value.values()):
        return [f"{_key(key)} {name}: {_plain(facts)}" for name, facts in value.items() if facts]
    return [f"{_key(key)}: {_plain(value)}"]


def provenance_lines(provenance: Mapping[str, Any]) -> list[str]:
    """The provenance besides its hosts (which reports show as a table), in words."""
    lines = []
    for key, value in provenance.items():
        if key != "hosts":
            lines += _items(str(key), value)
    return lines
