"""A boot script's files installed on a host, journaled, and removed again.

    install(host, layout, journal, root="", enable=True, say=print)   # each command said
    uninstall(host, journal, say=print)                               # what install added

Every directory, file and link an install adds is a journal row (state `kept`) committed
before it is made, so a killed install is undone like a finished one. A path that exists
already is refused unless the journal says an earlier install of this host added it (then
it is replaced); nothing is written before every path has been checked. `kept` rows are
not recovery's: the files are meant to outlive this process and the boot.

Each command is said as it runs, in the words a user would type (a file's text, which
goes as printf's argument, is named rather than repeated).
"""

from __future__ import annotations

import posixpath
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from wirespeed.errors import HostError, WirespeedError
from wirespeed.hosts.base import Host
from wirespeed.tune.journal import Entry, Journal, State
from wirespeed.tune.keep import KeepError
from wirespeed.tune.keep_systems import Layout

Say = Callable[[str], None]
DIRECTORY, FILE, LINK = "directory", "file", "symlink"
WHY = "added by wirespeed tune keep --install"


@dataclass
class Installed:
    added: list[str] = field(default_factory=list)
    replaced: list[str] = field(default_factory=list)
    enabled: bool = False


@dataclass
class Removed:
    removed: list[Entry] = field(default_factory=list)
    failed: list[tuple[Entry, str]] = field(default_factory=list)


def _run(host: Host, argv: Sequence[str], say: Say) -> str:
    say(f"$ {shlex.join(argv)}")
    done = host.run(list(argv), timeout=30.0)
    if done.returncode != 0:
        raise HostError(
            f"`{shlex.join(argv)}` failed on {host.name}: "
            f"{done.stderr.strip() or done.stdout.strip() or f'exit status {done.returncode}'}"
        )
    return done.stdout


def _exists(host: Host, path: str) -> bool:
    """A file, directory or link (a dangling one too) at path."""
    done = host.run(["sh", "-c", 'test -e "$1" || test -L "$1"', "sh", path], timeout=30.0)
    return done.returncode == 0


def _is_directory(host: Host, path: str) -> bool:
    return host.run(["test", "-d", path], timeout=30.0).returncode == 0


def _missing_directories(host: Host, root: str, paths: Sequence[str]) -> list[str]:
    """The directories to make, parents first, for every path's parent to exist."""
    missing: list[str] = []
    for path in paths:
        chain: list[str] = []
        directory = posixpath.dirname(path)
        while directory not in (root, "/") and directory not in missing:
            if _is_directory(host, directory):
                break
            chain.append(directory)
            directory = posixpath.dirname(directory)
        missing += reversed(chain)
    return missing


def install(
    host: Host,
    layout: Layout,
    journal: Journal,
    *,
    root: str = "",
    enable: bool = True,
    say: Say,
) -> Installed:
    """The layout's files under root ("" for the device's /), and the enabling link."""
    root = root.rstrip("/")
    if root and not _is_directory(host, root):
        raise KeepError(f"install root {root} is not a directory on {host.name}")
    ours = {entry.target for entry in journal.kept_entries(host.name)}
    paths = [root + f.path for f in layout.files] + ([root + layout.link] if enable else [])
    for path in paths:
        if path not in ours and _exists(host, path):
            raise KeepError(
                f"{path} exists on {host.name} and was not installed by wirespeed tune keep",
                hint="remove it, or install under another --name",
            )
    session = journal.new_session()
    position = 0
    done = Installed()

    def record(path: str, kind: str) -> None:
        nonlocal position
        journal.record(
            session=session,
            position=position,
            host=host.name,
            host_boot=None,  # files survive a reboot: no boot makes the row expire
            target=path,
            previous="",  # nothing was there
            new=kind,
            why=WHY,
            state=State.KEPT,
        )
        position += 1
        done.added.append(path)

    for directory in _missing_directories(host, root, paths):
        record(directory, DIRECTORY)
        _run(host, ["mkdir", directory], say)
    for boot_file in layout.files:
        path = root + boot_file.path
        if path in ours:
            done.replaced.append(path)
        else:
            record(path, FILE)
        say(
            f'$ sh -c \'printf %s "$1" > "$2"\' sh \'<{boot_file.what}, '
            f"{len(boot_file.text.encode())} bytes>' {shlex.quote(path)}"
        )
        host.write_file(path, boot_file.text)
        _run(host, ["chmod", boot_file.mode, path], say)
    if enable:
        link = root + layout.link
        if link in ours and _exists(host, link):
            done.replaced.append(link)
        else:
            if link not in ours:
                record(link, LINK)
            _run(host, ["ln", "-s", layout.link_to, link], say)
        done.enabled = True
    else:
        done.enabled = root + layout.link in ours and _exists(host, root + layout.link)
    return done


def uninstall(host: Host, journal: Journal, *, say: Say) -> Removed:
    """Remove what installs on this host added, newest first (links and files, then the
    directories they made, each only if empty). A path that cannot be removed stays in
    the journal for the next try."""
    removed = Removed()
    for entry in reversed(journal.kept_entries(host.name)):
        argv = ["rmdir", entry.target] if entry.new == DIRECTORY else ["rm", "-f", entry.target]
        try:
            if entry.new != DIRECTORY or _exists(host, entry.target):
                _run(host, argv, say)
            if _exists(host, entry.target):
                raise HostError(f"{entry.target} is still there")
        except (OSError, WirespeedError) as error:
            message = error.message if isinstance(error, WirespeedError) else str(error)
            removed.failed.append((entry, message))
            continue
        journal.set_state(entry.id, State.RESTORED)
        removed.removed.append(entry)
    return removed
