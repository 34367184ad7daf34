"""`wirespeed site --check DIR`: whether every bundle of a results directory may join it.

A bundle passes when store/bundle.py reads it whole (its format, a version this wirespeed
reads, its digest and every run's id: nothing edited or damaged), it was exported with
names as pseudonyms and nothing personal is left in it (the pseudonyms' own map, built
on the bundle, changes nothing), and each run's verdict is the one wirespeed works out
again from the run, and says it is valid to compare (or --allow-invalid).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wirespeed.analysis.validity import run_verdict
from wirespeed.errors import UsageError
from wirespeed.site.gather import read_bundle
from wirespeed.store.bundle import DERIVED, Bundle
from wirespeed.store.pseudonyms import Pseudonyms
from wirespeed.store.records import RunRecord

NOTHING = "it cannot join the results"


@dataclass(frozen=True)
class Checked:
    file: str  # relative to the directory checked
    problems: tuple[str, ...]
    runs: int = 0
    # Runs not valid to compare, accepted under --allow-invalid: said, not counted bad.
    invalid: tuple[str, ...] = field(default=())

    @property
    def ok(self) -> bool:
        return not self.problems


def _personal(bundle: Bundle) -> list[str]:
    """What the bundle still says of people and machines: the strings the pseudonyms'
    map would rewrite."""
    if bundle.names != "pseudonyms":
        return [
            f"exported with --keep-names (names {bundle.names!r}): host names, addresses "
            "and user names are in it; export it again without --keep-names"
        ]
    said = []
    names = Pseudonyms(bundle.runs)
    for index, run in enumerate(bundle.runs, start=1):
        content = {k: v for k, v in run.items() if k not in DERIVED}
        rewritten = names.apply(content)
        if rewritten != content:
            found = _first_difference(content, rewritten)
            said.append(
                f"run {index} holds personal data ({found}); export it again from the "
                "store, without --keep-names"
            )
    return said


def _first_difference(before: Any, after: Any, where: str = "") -> str:
    """Where the first string the pseudonyms rewrote is, and what it became (not what it
    was: the check's output may be public)."""
    if isinstance(before, dict) and isinstance(after, dict):
        for (key, value), (new_key, new_value) in zip(
            sorted(before.items()), sorted(after.items()), strict=False
        ):
            if key != new_key:
                return f"a key at {where or 'the top'}"
            found = _first_difference(value, new_value, f"{where}.{key}" if where else key)
            if found:
                return found
        return ""
    if isinstance(before, list) and isinstance(after, list):
        for index, (value, new_value) in enumerate(zip(before, after, strict=False)):
            found = _first_difference(value, new_value, f"{where}[{index}]")
            if found:
                return found
        return ""
    if before != after:
        return f"at {where}: it would read {str(after)[:60]!r}"
    return ""


def _verdicts(
    bundle: Bundle, records: Sequence[RunRecord], allow_invalid: bool
) -> tuple[list[str], list[str]]:
    problems: list[str] = []
    invalid: list[str] = []
    for index, (run, record) in enumerate(zip(bundle.runs, records, strict=True), start=1):
        worked_out = run_verdict(record)
        said = run.get("verdict")
        if said is None:
            problems.append(f"run {index} has no verdict; export it again with this wirespeed")
            continue
        if said != worked_out.as_json():
            problems.append(
                f"run {index}'s verdict says {_verdict_text(said)}, its trials say "
                f"{worked_out.short}"
            )
            continue
        if not worked_out.valid:
            line = f"run {index} is {worked_out.short}"
            (invalid if allow_invalid else problems).append(line)
    return problems, invalid


def _verdict_text(said: Any) -> str:
    if isinstance(said, dict) and said.get("valid") is True:
        return "valid"
    if isinstance(said, dict):
        return "not valid: " + "; ".join(str(r) for r in said.get("reasons") or ())
    return repr(said)


def check_bundle(path: Path, relative: str, *, allow_invalid: bool = False) -> Checked:
    try:
        bundle, records = read_bundle(path, relative, NOTHING)
    except UsageError as error:  # a BundleError, or a file that cannot be read
        return Checked(relative, (str(error).removeprefix(f"{relative}: "),))
    problems = _personal(bundle)
    verdicts, invalid = _verdicts(bundle, records, allow_invalid)
    if not bundle.runs:
        problems.append("holds no runs")
    return Checked(relative, tuple(problems + verdicts), len(bundle.runs), tuple(invalid))
