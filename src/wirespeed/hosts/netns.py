"""A named network namespace as a Host: the lab's client, DUT and server.

Programs run through `ip netns exec NAMESPACE argv...`: ip enters the namespace, remounts
/sys for it and then execs the program in place, so the PID wirespeed sees is the
program's own PID (in the root PID namespace) and signals reach it directly. Starting
through ip costs a few milliseconds per program (the lab's tests measure it).

Files are read as the namespace sees them, without a subprocess where the kernel allows:

- /proc paths are read in a short-lived thread that has joined the namespace with
  setns(2). /proc/net is a symlink to /proc/self/net, which follows the thread *group
  leader* (still in the root namespace), so it is rewritten to /proc/thread-self/net.
  /proc/sys/net/* resolves by the calling thread's namespace, /proc/<pid>/net by that
  process's namespace.
- /sys shows the namespace of whoever mounted it, so /sys paths go through
  `ip netns exec NAMESPACE cat|tee`, which mounts a sysfs of the namespace.
- Anything else is the same file system as this machine's: read directly.

setns(CLONE_NEWNET) affects only the calling thread, so joining a namespace in a helper
thread leaves the rest of wirespeed where it was.
"""

from __future__ import annotations

import ctypes
import errno
import os
import shutil
import subprocess
import threading
from collections.abc import Callable, Sequence
from typing import TypeVar

from wirespeed.errors import HostError, MissingToolError
from wirespeed.hosts.base import Completed
from wirespeed.hosts.local import LocalProcess, popen, read_text, run_to_end, write_text

NETNS_DIR = "/run/netns"  # where `ip netns add` bind-mounts named namespaces
_CLONE_NEWNET = 0x40000000
_SUBPROCESS_TIMEOUT = 10.0

T = TypeVar("T")


def namespace_path(namespace: str) -> str:
    return os.path.join(NETNS_DIR, namespace)


def namespace_exists(namespace: str) -> bool:
    return os.path.exists(namespace_path(namespace))


def _setns(namespace: str) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    try:
        fd = os.open(namespace_path(namespace), os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        raise HostError(f"network namespace {namespace} does not exist") from None
    try:
        if libc.setns(fd, _CLONE_NEWNET) != 0:
            code = ctypes.get_errno()
            raise HostError(f"cannot enter network namespace {namespace}: {os.strerror(code)}")
    finally:
        os.close(fd)


def call_in_namespace(namespace: str, function: Callable[[], T]) -> T:
    """Call function in a thread that has joined the namespace; sockets it creates stay
    in that namespace for their whole life, whichever thread uses them later."""
    results: list[T] = []
    failures: list[BaseException] = []

    def body() -> None:
        try:
            _setns(namespace)
            results.append(function())
        except BaseException as error:  # re-raised in the caller's thread
            failures.append(error)

    thread = threading.Thread(target=body, name=f"netns:{namespace}", daemon=True)
    thread.start()
    thread.join()
    if failures:
        raise failures[0]
    return results[0]


def procfs_path_in_thread(path: str) -> str:
    """/proc/net/... and /proc/self/net/... as the calling thread's namespace shows them."""
    for prefix in ("/proc/net/", "/proc/self/net/"):
        if path.startswith(prefix):
            return "/proc/thread-self/net/" + path[len(prefix) :]
    if path in ("/proc/net", "/proc/self/net"):
        return "/proc/thread-self/net"
    return path


class NetnsHost:
    """Runs everything inside one named network namespace; implements hosts.base.Host."""

    def __init__(self, namespace: str) -> None:
        self._namespace = namespace
        self._where = f"namespace {namespace}"

    def __repr__(self) -> str:
        return f"NetnsHost({self._namespace!r})"

    @property
    def name(self) -> str:
        return self._namespace

    @property
    def namespace(self) -> str:
        return self._namespace

    def _command(self, argv: Sequence[str]) -> list[str]:
        if not argv:
            raise ValueError("argv must not be empty")
        if not namespace_exists(self._namespace):
            raise HostError(f"network namespace {self._namespace} does not exist")
        # ip would report a missing program only as exit status 255 after entering the
        # namespace; the file system is shared, so ask here and name the package.
        if shutil.which(argv[0]) is None:
            raise MissingToolError(os.path.basename(argv[0]), self._where)
        return ["ip", "netns", "exec", self._namespace, *argv]

    def start(
        self,
        argv: Sequence[str],
        *,
        on_line: Callable[[str], None] | None = None,
    ) -> LocalProcess:
        return LocalProcess(popen(self._command(argv), self._where), argv, on_line)

    def run(self, argv: Sequence[str], *, timeout: float = 30.0) -> Completed:
        return run_to_end(self._command(argv), self._where, timeout, shown_argv=argv)

    def read_file(self, path: str) -> str:
        if path.startswith("/proc/"):
            inner = procfs_path_in_thread(path)
            return call_in_namespace(self._namespace, lambda: read_text(inner, self._where))
        if path.startswith("/sys/"):
            completed = self._sysfs(["cat", "--", path], None)
            return completed.stdout
        return read_text(path, self._where)

    def write_file(self, path: str, text: str) -> None:
        if path.startswith("/proc/"):
            inner = procfs_path_in_thread(path)
            call_in_namespace(self._namespace, lambda: write_text(inner, text, self._where))
        elif path.startswith("/sys/"):
            self._sysfs(["tee", "--", path], text)
        else:
            write_text(path, text, self._where)

    def _sysfs(self, argv: list[str], stdin: str | None) -> Completed:
        command = self._command(argv)
        try:
            completed = subprocess.run(
                command,
                input=stdin if stdin is not None else "",
                capture_output=True,
                text=True,
                timeout=_SUBPROCESS_TIMEOUT,
                check=False,
            )
        except FileNotFoundError:
            raise MissingToolError("ip", "this machine") from None
        except subprocess.TimeoutExpired:
            raise HostError(f"{argv[0]} {argv[-1]} hung in {self._where}") from None
        if completed.returncode != 0:
            message = completed.stderr.strip()
            if "No such file" in message:
                raise FileNotFoundError(errno.ENOENT, "No such file or directory", argv[-1])
            raise HostError(f"cannot access {argv[-1]} in {self._where}: {message}")
        return Completed(tuple(argv), completed.returncode, completed.stdout, completed.stderr)

    def which(self, program: str) -> str | None:
        return shutil.which(program)
