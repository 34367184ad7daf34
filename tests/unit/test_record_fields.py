"""A record's fields under their own names, both ways (record_fields.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from wirespeed.record_fields import fields, fields_or_none, record_of


@dataclass(frozen=True)
class _Sample:
    name: str
    count: int
    tags: tuple[str, ...] = ()
    seen: list[str] = field(default_factory=list, init=False)

    @property
    def double(self) -> int:
        return 2 * self.count


def test_fields_keep_the_order_asked_and_read_properties_too() -> None:
    sample = _Sample("a", 3)
    written = fields(sample, ("double", "name", "count"))
    assert list(written) == ["double", "name", "count"]
    assert written == {"double": 6, "name": "a", "count": 3}
    assert fields_or_none(None, ("name",)) is None


def test_a_record_comes_back_from_its_fields_with_the_given_ones_converted() -> None:
    stored: dict[str, Any] = {"name": "a", "count": 3, "tags": ["x", "y"], "other": "ignored"}
    sample = record_of(_Sample, stored, tags=tuple(stored["tags"]))
    assert sample == _Sample("a", 3, ("x", "y"))


def test_a_field_missing_from_the_stored_fields_is_an_error_unless_given() -> None:
    with pytest.raises(KeyError, match="tags"):
        record_of(_Sample, {"name": "a", "count": 3})
    assert record_of(_Sample, {"name": "a", "count": 3}, tags=()) == _Sample("a", 3)
