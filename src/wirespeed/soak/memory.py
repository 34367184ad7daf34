"""Keeping a soak's memory flat for hours.

Each chunk's irtt output (2.4 MB of JSON a minute) is read line by line by a reader
thread of its own and parsed once the chunk ends; Python frees it all, but glibc's
malloc keeps what it freed in per-thread arenas (up to eight per core), and a new
reader thread per chunk spreads the freed memory over more of them: the resident size
crept up by about 1 MB a chunk over a 30-minute soak. Two arenas, and a malloc_trim()
after each chunk (which hands the free pages of every arena back), keep it flat.
Where the C library is not glibc both are skipped: nothing else depends on them.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util

__all__ = ["limit_arenas", "trim"]

_M_ARENA_MAX = -8  # glibc's mallopt parameter number


def _glibc() -> ctypes.CDLL | None:
    with contextlib.suppress(OSError, AttributeError):
        name = ctypes.util.find_library("c")
        if name is not None:
            libc = ctypes.CDLL(name)
            if hasattr(libc, "malloc_trim") and hasattr(libc, "mallopt"):
                return libc
    return None


def limit_arenas(count: int = 2) -> None:
    if (libc := _glibc()) is not None:
        libc.mallopt(_M_ARENA_MAX, count)


def trim() -> None:
    if (libc := _glibc()) is not None:
        libc.malloc_trim(0)
