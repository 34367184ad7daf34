"""Where runs and trials are kept: SQLAlchemy Core on SQLite or PostgreSQL.

The records (RunInfo, RunRecord ...) import nothing heavy; Store loads SQLAlchemy on first
use, so reading a record or rendering a report does not pay for the database layer.

Store and its errors are taken from here: the modules that make up the Store (store.py,
backends.py, schema_setup.py, writing.py, loading.py, rebuilding.py, errors.py,
redaction.py) are the store's own, and an import contract (pyproject.toml) keeps the
rest of wirespeed out of them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from wirespeed.store.records import HostInfo, RunInfo, RunRecord, RunStatus, RunSummary

if TYPE_CHECKING:
    from wirespeed.store.errors import StoreError, StoreUnavailableError
    from wirespeed.store.location import default_db_path
    from wirespeed.store.store import Store

__all__ = [
    "HostInfo",
    "RunInfo",
    "RunRecord",
    "RunStatus",
    "RunSummary",
    "Store",
    "StoreError",
    "StoreUnavailableError",
    "default_db_path",
]

# Loaded when first asked for: name -> the module that defines it.
_LAZY = {
    "Store": "wirespeed.store.store",
    "StoreError": "wirespeed.store.errors",
    "StoreUnavailableError": "wirespeed.store.errors",
    "default_db_path": "wirespeed.store.location",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
