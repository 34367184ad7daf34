"""A soak plan with `variants:` soaks once per variant, one after the other: one stored
soak each, their headers' info tying them together (`group`, `variant`, `variants`).

    info = group_info(plan_variants, 0, group_token())    # for the first variant's soak
    rest = still_to_soak(store, header)                   # after it, or on --resume
    members = group_of(store, header)                     # for --compare
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from wirespeed.plan.plan import Variant
from wirespeed.soak import records
from wirespeed.soak.records import SoakHeader
from wirespeed.store import Store

__all__ = ["group_info", "group_of", "group_token", "still_to_soak", "variant_of"]


def group_token() -> str:
    return uuid.uuid4().hex[:12]


def group_info(variants: Sequence[Variant], index: int, group: str) -> dict[str, Any]:
    return {
        "group": group,
        "variant": variants[index].name,
        "variants": [variant.name for variant in variants],
    }


def variant_of(info: Mapping[str, Any]) -> str | None:
    value = info.get("variant")
    return value if isinstance(value, str) else None


def group_of(store: Store, header: SoakHeader) -> list[SoakHeader]:
    """The soaks of header's group, in the order they began; [header] when it has none."""
    group = header.info.get("group")
    if not group:
        return [header]
    return [soak for soak in records.list_soaks(store) if soak.info.get("group") == group]


def still_to_soak(store: Store, header: SoakHeader) -> list[str]:
    """The variants of header's group after header's own that have no soak yet."""
    names = [str(name) for name in header.info.get("variants", [])]
    own = variant_of(header.info)
    if own is None or own not in names:
        return []
    started = {variant_of(soak.info) for soak in group_of(store, header)}
    return [name for name in names[names.index(own) + 1 :] if name not in started]
