"""The sampler's command line: the shipped POSIX sh script and its parameters.

The script travels as one argument of `sh -c` and the parameters as positional
arguments after it, so no value is ever spliced into shell or awk text.
"""

from __future__ import annotations

import math
from importlib import resources

SCRIPT_NAME = "wirespeed-sampler"  # $0 of the script: what ps shows
MIN_INTERVAL = 0.05
MAX_INTERVAL = 3600.0
DEFAULT_MAX_RUNTIME = 3600.0


def sampler_script() -> str:
    return resources.files("wirespeed.sampling").joinpath("sampler.sh").read_text("utf-8")


def sampler_argv(
    interval: float = 1.0, root: str = "/", max_runtime: float = DEFAULT_MAX_RUNTIME
) -> list[str]:
    """argv that samples every `interval` seconds the files under `root` ("/" for the
    live system, or a directory holding a fake /proc and /sys), and exits by itself
    after `max_runtime` seconds."""
    if not MIN_INTERVAL <= interval <= MAX_INTERVAL:
        raise ValueError(f"interval must be {MIN_INTERVAL}..{MAX_INTERVAL} s, got {interval}")
    if not root.startswith("/"):
        raise ValueError(f"root must be an absolute path, got {root!r}")
    if not max_runtime > 0:
        raise ValueError(f"max_runtime must be positive, got {max_runtime}")
    # busybox sleep and `read -t` take fractions but not exponents: print 0.1, never 1e-01.
    interval_text = f"{interval:.3f}".rstrip("0").rstrip(".")
    return [
        "sh",
        "-c",
        sampler_script(),
        SCRIPT_NAME,
        interval_text,
        root,
        str(math.ceil(max_runtime)),
    ]
