"""Writes procfs_interrupts_expected.json: what the two /proc/interrupts parsers that
wirespeed.procfs_interrupts replaced made of every reading captured in tests/fixtures.

Their code is read from git at commit af1cc97 (sampling/procfs.py with the IrqLine and
InterruptTable of sampling/model.py, and facts/interrupts.py), so this can be run again
when a capture is added:

    .venv/bin/python tests/unit/make_procfs_interrupts_expected.py

Identical readings share one table.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from test_procfs_interrupts import captured_readings

BEFORE = "af1cc97"
ROOT = Path(__file__).resolve().parents[2]
OUTPUT = Path(__file__).with_name("procfs_interrupts_expected.json")
ABOUT = (
    f"What the two parsers before their merge (commit {BEFORE}: sampling/procfs.py and "
    "facts/interrupts.py) made of every captured /proc/interrupts reading in tests/fixtures "
    "(written by make_procfs_interrupts_expected.py); identical readings share a table. "
    "Each line: irq, counts, the sampling view [chip, hwirq, trigger, name], the facts view "
    "[chip, hwirq, trigger, names, number, controller]."
)


def old_module(name: str, path: str, replace: tuple[str, str] = ("", "")) -> ModuleType:
    """The module at `path` as of BEFORE, loaded under `name`."""
    source = subprocess.run(
        ["git", "show", f"{BEFORE}:{path}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    module = ModuleType(name)
    sys.modules[name] = module  # dataclasses look their module up
    exec(compile(source.replace(*replace), f"{BEFORE}:{path}", "exec"), module.__dict__)
    return module


def table_rows(sampling_table: Any, facts_table: Any) -> list[list[Any]]:
    assert sampling_table.cpus == facts_table.cpus
    rows: list[list[Any]] = []
    for line, facts in zip(sampling_table.lines, facts_table.lines, strict=True):
        assert (facts.irq, facts.counts) == (line.irq, line.counts)
        rows.append(
            [
                line.irq,
                list(line.counts),
                [line.chip, line.hwirq, line.trigger, line.name],
                [
                    facts.chip,
                    facts.hwirq,
                    facts.trigger,
                    list(facts.names),
                    facts.number,
                    facts.controller,
                ],
            ]
        )
    return rows


def main() -> None:
    old_model = "before_sampling_model"
    old_module(old_model, "src/wirespeed/sampling/model.py")
    sampling = old_module(
        "before_sampling_procfs",
        "src/wirespeed/sampling/procfs.py",
        ("from wirespeed.sampling.model import", f"from {old_model} import"),
    )
    facts = old_module("before_facts_interrupts", "src/wirespeed/facts/interrupts.py")
    tables: dict[str, dict[str, Any]] = {}
    for reading, text in captured_readings().items():
        if text in tables:
            tables[text]["readings"].append(reading)
            continue
        sampling_table = sampling.parse_interrupts(text)
        tables[text] = {
            "readings": [reading],
            "cpus": list(sampling_table.cpus),
            "lines": table_rows(sampling_table, facts.parse_interrupts(text)),
        }
    # One line of JSON per /proc/interrupts line, so that a diff shows which line changed.
    parts = [f'{{\n  "about": {json.dumps(ABOUT)},\n  "tables": [\n']
    for index, table in enumerate(tables.values()):
        rows = ",\n".join(f"      {json.dumps(row)}" for row in table["lines"])
        parts.append(
            f'    {{"readings": {json.dumps(table["readings"])},\n'
            f'     "cpus": {json.dumps(table["cpus"])},\n'
            f'     "lines": [\n{rows}\n    ]}}{"," if index < len(tables) - 1 else ""}\n'
        )
    parts.append("  ]\n}\n")
    OUTPUT.write_text("".join(parts))


if __name__ == "__main__":
    main()
