"""Paths of the sampling fixtures, and a way to run the real sampler on a fake tree."""

from __future__ import annotations

import subprocess
from pathlib import Path

from wirespeed.sampling.script import sampler_argv

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
PROC = FIXTURES / "proc"
THIS_MACHINE = PROC / "x86-vm-2cpu"
R4S_BOARD = FIXTURES / "boards" / "r4s-sampling"


def proc_text(name: str) -> str:
    return (PROC / name).read_text()


def run_sampler(
    root: Path, seconds: float, interval: float = 0.2, shell: str = "sh", path: str | None = None
) -> str:
    """The sampler's output after it ran for `seconds` under `shell`: stopped by its
    own max runtime, so the test also proves that it ends by itself."""
    argv = sampler_argv(interval, str(root), max_runtime=seconds)
    argv[0] = shell
    env = {"PATH": path} if path is not None else None
    completed = subprocess.run(
        argv, capture_output=True, text=True, timeout=seconds + 10, env=env, check=False
    )
    assert completed.returncode == 0, completed.stderr
    return completed.stdout
