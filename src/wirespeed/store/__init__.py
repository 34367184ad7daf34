"""Where runs and trials are kept: SQLAlchemy Core on SQLite or PostgreSQL.

The records (RunInfo, RunRecord ...) import nothing heavy; Store loads SQLAlchemy on first
use, so reading a record or rendering a report does not pay for the database layer.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from wirespeed.store.records import HostInfo, RunInfo, RunRecord, RunStatus, RunSummary

if TYPE_CHECKING:
    from wirespeed.store.location import default_db_path
    from wirespeed.store.store import Store

__all__ = [
    "HostInfo",
    "RunInfo",
    "RunRecord",
    "RunStatus",
    "RunSummary",
    "Store",
    "default_db_path",
]


def __getattr__(name: str) -> Any:
    if name == "Store":
        return importlib.import_module("wirespeed.store.store").Store
    if name == "default_db_path":
        return importlib.import_module("wirespeed.store.location").default_db_path
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
