"""A Host over a copy of a board's /proc + /sys tree, for apply/restore without root.

Paths are confined to the tree: symlinks are followed (sysfs is made of them) but a path
that ends up outside the root is an error, so a test proves where writes went.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path

from wirespeed.errors import HostError
from wirespeed.hosts.base import Completed, Process

BOARDS = Path(__file__).resolve().parents[2] / "fixtures" / "boards"


class TreeHost:
    def __init__(self, root: Path, name: str = "tree") -> None:
        self.root = root.resolve()
        self._name = name
        self.writes: list[tuple[str, str]] = []

    @property
    def name(self) -> str:
        return self._name

    def _on_disk(self, path: str) -> Path:
        real = Path(os.path.realpath(self.root / path.lstrip("/")))
        if real != self.root and self.root not in real.parents:
            raise HostError(f"{path} leaves the tree")
        return real

    def read_file(self, path: str) -> str:
        return self._on_disk(path).read_text()

    def write_file(self, path: str, text: str) -> None:
        target = self._on_disk(path)
        if not target.is_file():
            raise FileNotFoundError(path)
        self.writes.append((path, text))
        target.write_text(text)

    def run(self, argv: Sequence[str], *, timeout: float = 30.0) -> Completed:
        raise HostError(f"a captured tree runs no programs ({argv[0]})")

    def start(
        self, argv: Sequence[str], *, on_line: Callable[[str], None] | None = None
    ) -> Process:
        raise HostError("a captured tree runs no programs")

    def which(self, program: str) -> str | None:
        return None


def copy_board(name: str, into: Path) -> Path:
    target = into / name
    shutil.copytree(BOARDS / name, target, symlinks=True)
    return target


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file's bytes and every link's target, by path: two equal snapshots are
    byte-identical trees."""
    found: dict[str, bytes] = {}
    for directory, dirs, files in os.walk(root):
        for name in [*dirs, *files]:
            path = Path(directory) / name
            key = str(path.relative_to(root))
            if path.is_symlink():
                found[key] = b"-> " + os.readlink(path).encode()
            elif path.is_file():
                found[key] = path.read_bytes()
    return found
