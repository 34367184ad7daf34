"""What the store's file-system tests share: mounts made for a test and removed after
it, a plan over loopback, a real tool output to import, and the CLI run in-process."""

from __future__ import annotations

import contextlib
import io
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from wirespeed.cli.app import main
from wirespeed.cli.env import Environment

SEED_OUTPUT = Path(__file__).parents[2] / "fixtures" / "seeds" / "r2s-br0-test1.txt"

LOOPBACK = """
title: store failures
hosts:
  me: {address: 127.0.0.1}
paths:
  - {name: lo, topology: endpoint, client: me, server: me}
defaults: {duration: 1, tool: iperf3}
tests:
  - {id: "1", name: TCP up}
  - {id: "2", name: TCP down, direction: down}
  - {id: "3", name: TCP bidir, direction: bidir}
"""


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(list(argv), Environment(stdout=out, stderr=err, stdout_is_tty=False))
    return status, out.getvalue(), err.getvalue()


@contextlib.contextmanager
def mounted(*argv: str | Path) -> Iterator[None]:
    """`mount argv...` (the last argument the mount point), unmounted on leaving: lazily
    if something still holds it, so that a failing test leaves no mount behind."""
    subprocess.run(["mount", *map(str, argv)], check=True)
    try:
        yield
    finally:
        if subprocess.run(["umount", str(argv[-1])], check=False).returncode != 0:
            subprocess.run(["umount", "--lazy", str(argv[-1])], check=True)
            pytest.fail(f"{argv[-1]} was still in use when the test ended")


@contextlib.contextmanager
def read_only_view(directory: Path, at: Path) -> Iterator[Path]:
    """`directory` seen read-only at `at`: a read-only bind mount, as a store shared
    from a lab machine or a backup is mounted."""
    at.mkdir()
    with mounted("--bind", directory, at):
        subprocess.run(["mount", "-o", "remount,bind,ro", str(at)], check=True)
        yield at
