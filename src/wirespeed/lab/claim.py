"""Whose a lab is: which name a new lab may take, and who may remove one.

A lab's record names its owner (lab/record.py): the run that built it, or, while it is
being built, whoever builds it. A lab whose owner is alive, and is not this process,
is never removed or rebuilt by anyone else: two runs at once must not measure in each
other's namespaces. Only `wirespeed lab down --force` overrides that.

    held_by_other(owner, me)             # a live process other than me owns it
    candidate_names("bridge", rename=True)  # bridge, bridge-2, ... bridge-20
    LabInUseError(name, owner)           # the name is taken: exit status 2, who holds it

A lab built by hand (owner None) and a lab whose owner died are nobody's: the next
`lab up` or run of that name replaces them, and `lab down` removes them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from wirespeed.errors import UsageError
from wirespeed.lab import record
from wirespeed.lab.naming import check_lab_name

# How many numbered alternatives a run tries when its default lab name is taken.
MAX_ALTERNATIVES = 20


class LabInUseError(UsageError):
    """The lab name is taken by a live process: building or removing it would pull the
    namespaces from under that process's measurements."""

    def __init__(self, name: str, owner: str, hint: str | None = None) -> None:
        super().__init__(
            f"lab {name} is in use by {record.describe_owner(owner)}",
            hint=hint
            or "wait until it ends, or choose another name (run --lab-name, lab up --name)",
        )
        self.name = name
        self.owner = owner


def held_by_other(owner: str | None, me: str, alive: Callable[[str], bool] | None = None) -> bool:
    """A lab of this owner belongs to a live process other than me. None: built by hand,
    nobody's. alive: record.owner_alive unless given."""
    is_alive = alive or record.owner_alive
    return owner is not None and owner != me and is_alive(owner)


def candidate_names(name: str, *, rename: bool) -> Iterator[str]:
    """The names a new lab may take, in order: its own, then (rename) name-2, name-3 ...
    Numbered names that would be too long for a lab name are left out."""
    yield name
    if not rename:
        return
    for number in range(2, MAX_ALTERNATIVES + 1):
        candidate = f"{name}-{number}"
        try:
            yield check_lab_name(candidate)
        except UsageError:
            return


def first_free(
    candidates: Iterator[str],
    owner_of: Callable[[str], str | None],
    me: str,
    alive: Callable[[str], bool] | None = None,
) -> tuple[str | None, list[tuple[str, str]]]:
    """The first candidate no other live process holds (None: all are held), and the
    candidates passed over with their owners."""
    passed: list[tuple[str, str]] = []
    for candidate in candidates:
        owner = owner_of(candidate)
        if owner is not None and held_by_other(owner, me, alive):
            passed.append((candidate, owner))
            continue
        return candidate, passed
    return None, passed
