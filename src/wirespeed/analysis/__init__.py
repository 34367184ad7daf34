"""Analysis of stored results: physical ceilings first; statistics and diagnosis follow."""

from wirespeed.analysis.ceiling import Ceiling, ceiling, ceiling_for, frames_per_second

__all__ = ["Ceiling", "ceiling", "ceiling_for", "frames_per_second"]
