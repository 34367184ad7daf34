"""The store's MetaData and the column types its tables share.

Below every module that defines tables (store/schema.py, journal_table.py,
soak_table.py): each adds its tables to this one `metadata`, which the Store creates.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import BigInteger, Dialect, Integer, MetaData, Text, TypeDecorator

__all__ = ["FreeText", "Id", "metadata"]

# Row ids: BIGINT on PostgreSQL (BIGSERIAL; a lab's store shared for years may pass 2^31
# rows), INTEGER on SQLite, where only `INTEGER PRIMARY KEY` is the auto-incrementing rowid.
Id = BigInteger().with_variant(Integer(), "sqlite")

# Marks a PostgreSQL text value stored JSON-escaped. U+FDD0 is a Unicode noncharacter:
# no tool output or plan starts with it, and one that does is escaped too, so it is exact.
_ESCAPED = "\ufdd0"


class FreeText(TypeDecorator[str]):
    """Any str, kept exactly. PostgreSQL refuses NUL in text, and a raw tool output
    decoded with errors="replace" can hold one: there, such a value is stored JSON-escaped
    behind a marker. Every other value, and every value on SQLite, is stored as it is."""

    impl = Text
    cache_ok = True

    def process_bind_param(self, value: str | None, dialect: Dialect) -> str | None:
        if value is None or dialect.name != "postgresql":
            return value
        if "\x00" in value or value.startswith(_ESCAPED):
            return _ESCAPED + json.dumps(value)
        return value

    def process_result_value(self, value: Any, dialect: Dialect) -> str | None:
        if value is None or dialect.name != "postgresql" or not value.startswith(_ESCAPED):
            return value  # type: ignore[no-any-return]
        decoded: str = json.loads(value[len(_ESCAPED) :])
        return decoded


metadata = MetaData()
