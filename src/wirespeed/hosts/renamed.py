"""A Host under another name: the same device, named as something else must reach it.

The tune journal keeps a host's name so that recovery can reach it again after a crash;
a plan calls its device `pluto`, recovery needs `root@192.168.2.1`."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from wirespeed.hosts.base import Completed, Host, Process


class RenamedHost:
    def __init__(self, host: Host, name: str) -> None:
        self.host = host
        self._name = name

    def __repr__(self) -> str:
        return f"RenamedHost({self.host!r}, {self._name!r})"

    @property
    def name(self) -> str:
        return self._name

    def start(
        self, argv: Sequence[str], *, on_line: Callable[[str], None] | None = None
    ) -> Process:
        return self.host.start(argv, on_line=on_line)

    def run(self, argv: Sequence[str], *, timeout: float = 30.0) -> Completed:
        return self.host.run(argv, timeout=timeout)

    def read_file(self, path: str) -> str:
        return self.host.read_file(path)

    def write_file(self, path: str, text: str) -> None:
        self.host.write_file(path, text)

    def which(self, program: str) -> str | None:
        return self.host.which(program)
