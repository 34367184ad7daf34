"""The privileged operations under the lab: run ip/tc/nft, list, empty and delete
namespaces. Every failure becomes a LabError that names the command and quotes its
stderr, so the user sees what the kernel refused instead of a traceback.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import signal
import subprocess
import time
from collections.abc import Iterable, Sequence

from wirespeed.errors import LabError, MissingToolError, NotRootError
from wirespeed.hosts.netns import NETNS_DIR, namespace_exists
from wirespeed.lab.naming import PREFIX

COMMAND_TIMEOUT = 20.0
# How long teardown waits for killed processes to leave a namespace.
KILL_WAIT_SECONDS = 3.0


def require_root(what: str) -> None:
    if os.geteuid() != 0:
        raise NotRootError(what)


def require_tools(tools: Iterable[str]) -> None:
    for tool in tools:
        if shutil.which(tool) is None:
            raise MissingToolError(tool)


def run(argv: Sequence[str], *, stdin: str | None = None, check: bool = True) -> str:
    """Run a lab command; its stdout, or LabError with the command and its stderr."""
    try:
        completed = subprocess.run(
            list(argv),
            input=stdin,
            capture_output=True,
            text=True,
            timeout=COMMAND_TIMEOUT,
            check=False,
            start_new_session=True,  # a Ctrl-C must not cut a teardown command short
        )
    except FileNotFoundError:
        raise MissingToolError(os.path.basename(argv[0])) from None
    except subprocess.TimeoutExpired:
        raise LabError(f"`{shlex.join(argv)}` hung for {COMMAND_TIMEOUT:.0f} s") from None
    if check and completed.returncode != 0:
        detail = completed.stderr.strip() or completed.stdout.strip() or "no message"
        raise LabError(
            f"`{shlex.join(argv)}` failed (exit status {completed.returncode}): {detail}"
        )
    return completed.stdout


def project_namespaces() -> list[str]:
    """Every namespace named like the project's, sorted."""
    try:
        names = os.listdir(NETNS_DIR)
    except FileNotFoundError:
        return []
    return sorted(name for name in names if name.startswith(PREFIX))


def namespace_pids(namespace: str) -> list[int]:
    if not namespace_exists(namespace):
        return []
    output = run(["ip", "netns", "pids", namespace], check=False)
    return [int(word) for word in output.split() if word.isdigit()]


def kill_processes_in(namespace: str) -> None:
    """SIGKILL whatever still runs in the namespace (a crashed run's iperf servers) and
    wait until it is gone. Only processes inside the namespace are touched."""
    deadline = time.monotonic() + KILL_WAIT_SECONDS
    pids = namespace_pids(namespace)
    while pids:
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        if time.monotonic() > deadline:
            listed = ", ".join(map(str, pids))
            raise LabError(f"processes {listed} do not leave namespace {namespace}")
        time.sleep(0.02)
        pids = namespace_pids(namespace)


def delete_namespace(namespace: str) -> bool:
    """Empty and delete the namespace; its veths, qdiscs and nftables go with it.
    False if it did not exist."""
    if not namespace_exists(namespace):
        return False
    kill_processes_in(namespace)
    run(["ip", "netns", "delete", namespace], check=False)
    if namespace_exists(namespace):
        raise LabError(f"cannot delete namespace {namespace}")
    return True
