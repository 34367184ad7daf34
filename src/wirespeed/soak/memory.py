"""Keeping a soak's memory flat for hours, with the allocator's help.

A soak starts a few threads a chunk (the readers of irtt's and the sampler's output),
and glibc's malloc gives threads arenas of their own (up to eight per core) whose freed
memory it keeps; the chunks' parsing frees megabytes each time. Two arenas, and a
malloc_trim() after each chunk (which hands the free pages of every arena back), bound
what the allocator holds. This alone did not flatten the resident size: what did was
not making the garbage (the chunk's JSON read as one string, not 270,000 lines:
stream.output_path; its round trips decoded one at a time, not as one tree:
chunk.parse_chunk; docs/benchmarks.md has the measurements). Where the C library is not
glibc both are skipped: nothing else depends on them.
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
