"""A soak's lengths as a person reads them: 40 s, 2.5 min, 14.0 h.

Below the sentence and the device follower, which both tell lengths this way.
"""

from __future__ import annotations

__all__ = ["duration_text"]


def duration_text(seconds: float) -> str:
    if seconds >= 3600:
        return f"{seconds / 3600:.1f} h"
    if seconds >= 60:
        return f"{seconds / 60:.1f} min"
    return f"{seconds:.0f} s"
