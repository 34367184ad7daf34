"""What the soak lab tests share: the namespaces a lab of theirs left."""

from __future__ import annotations

import subprocess


def namespaces(lab: str) -> list[str]:
    """The namespaces of lab `lab` still present (none after a soak that cleaned up)."""
    listed = subprocess.run(
        ["ip", "netns", "list"], capture_output=True, text=True, check=False
    ).stdout
    return [line for line in listed.splitlines() if f"wirespeed-{lab}-" in line]
