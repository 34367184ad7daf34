"""A PC whose `ip`, `tc` and /proc/sys/net answer with what the real tools printed while a
port was moved into a namespace and back (tests/fixtures/ports/moved/capture.sh), for
the unit tests of the port mover (src/wirespeed/tune/ports.py) without root.

It replays: each read command has the captured answer of the port's current place
(`show("before")`, `show("after")`, `moved_away()`), a change (`ip link set`, `ip addr
add`, ...) succeeds silently as ip's do, and anything else is an error, so a test sees
every command the mover ran (`ran`), every sysctl it wrote (`writes`) and the
namespaces `ip netns add` / `del` left (`namespaces`; the mover's `namespace_exists`
is pointed at it). A test moves the port from one captured place to the next with
`when(argv, then)`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from wirespeed.errors import HostError
from wirespeed.hosts.base import Completed, Process
from wirespeed.tune.port_state import SYSCTL_SCRIPT

MOVED = Path(__file__).resolve().parents[1] / "fixtures" / "ports" / "moved"
PORT = "pt-cap0"
OTHER_PORT = "pt-cap2"  # the second port of the captured multipath routes
BOOT_ID = "/proc/sys/kernel/random/boot_id"


def captured(name: str) -> str:
    return (MOVED / name).read_text()


def refusal(name: str, argv: Sequence[str]) -> Completed:
    """ip's captured refusal `name` (its .err and .rc files)."""
    code = int(captured(f"{name}.rc"))
    return Completed(tuple(argv), code, "", captured(f"{name}.err"))


class PortHost:
    def __init__(self, where: str = "before", name: str = "pc") -> None:
        self._name = name
        self.ran: list[tuple[str, ...]] = []
        self.timeouts: list[float] = []
        self.writes: list[tuple[str, str]] = []
        self.namespaces: set[str] = set()
        self.answers: dict[tuple[str, ...], Completed] = {}
        self.files: dict[str, str] = {BOOT_ID: captured("boot_id.txt")}
        for comm in (MOVED / "inside").glob("comm-*.txt"):  # what ran in the namespace
            self.files[f"/proc/{comm.stem.removeprefix('comm-')}/comm"] = comm.read_text()
        self.refused_writes: set[str] = set()
        self._then: dict[tuple[str, ...], Callable[[], None]] = {}
        self.answer(["ip", "link", "show", "dev", OTHER_PORT], captured("before-pt-cap2/link.txt"))
        self.answer(["ip", "-j", "addr", "show"], captured("all-addr.json"))
        for family in ("4", "6"):
            argv = ["ip", f"-{family}", "-j", "route", "show", "table", "all", "default"]
            self.answer(argv, captured(f"default{family}.json"))
        self.answer(["tc", "-j", "qdisc", "show", "dev", PORT], captured("qdisc.json"))
        self.answer(["ip", "-j", "nexthop", "show", "dev", PORT], captured("nexthop.json"))
        self.show(where)

    @property
    def name(self) -> str:
        return self._name

    def answer(self, argv: Sequence[str], stdout: str, returncode: int = 0) -> None:
        self.answers[tuple(argv)] = Completed(tuple(argv), returncode, stdout, "")

    def show(self, where: str, port: str = PORT) -> None:
        """The port in this machine's namespace as captured in directory `where`."""
        self.answer(["ip", "link", "show", "dev", port], captured(f"{where}/link.txt"))
        for what in ("link", "addr"):
            self.answer(["ip", "-j", what, "show", "dev", port], captured(f"{where}/{what}.json"))
        self.answer(["ip", "-j", "route", "show", "table", "all"], captured(f"{where}/route.json"))
        text = captured(f"{where}/sysctl.txt")
        self.answer(["sh", "-c", SYSCTL_SCRIPT, "sh", port], text)
        for line in text.splitlines():
            path, _, value = line.partition("\t")
            self.files[f"/proc/sys/net/{path}"] = value + "\n"

    def moved_away(self, port: str = PORT) -> None:
        """The port in no namespace of this machine's: ip's captured "does not exist"."""
        for argv in (
            ["ip", "link", "show", "dev", port],
            ["ip", "-j", "link", "show", "dev", port],
            ["ip", "-j", "addr", "show", "dev", port],
        ):
            self.answers[tuple(argv)] = refusal("moved-away", argv)

    def when(self, argv: Sequence[str], then: Callable[[], None]) -> None:
        """Call `then` after `argv` runs (the port goes somewhere else)."""
        self._then[tuple(argv)] = then

    def namespace_exists(self, namespace: str) -> bool:
        return namespace in self.namespaces

    def run(self, argv: Sequence[str], *, timeout: float = 30.0) -> Completed:
        key = tuple(argv)
        self.ran.append(key)
        self.timeouts.append(timeout)
        done = self.answers.get(key)
        if done is None:
            done = self._change(key)
        if key in self._then:
            self._then[key]()
        return done

    def _change(self, argv: tuple[str, ...]) -> Completed:
        if argv[:3] == ("ip", "netns", "add"):
            self.namespaces.add(argv[3])
        elif argv[:3] == ("ip", "netns", "del"):
            self.namespaces.discard(argv[3])
        elif argv[0] != "ip" or "-j" in argv or "show" in argv or "pids" in argv:
            raise AssertionError(f"nothing captured answers {' '.join(argv)}")
        return Completed(argv, 0, "", "")

    def read_file(self, path: str) -> str:
        if path not in self.files:
            raise FileNotFoundError(path)
        return self.files[path]

    def write_file(self, path: str, text: str) -> None:
        if path in self.refused_writes:
            raise PermissionError(13, "Permission denied", path)
        if path not in self.files:
            raise FileNotFoundError(path)
        self.writes.append((path, text))
        self.files[path] = text

    def start(
        self, argv: Sequence[str], *, on_line: Callable[[str], None] | None = None
    ) -> Process:
        raise HostError("the replaying host starts no programs")

    def which(self, program: str) -> str | None:
        return None
