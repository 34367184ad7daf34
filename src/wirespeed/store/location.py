"""Where the default store lives, and whose it is.

The default is one SQLite file per user in the XDG data directory. `sudo wirespeed run`
is how the lab is meant to be used (it needs root), and sudo makes the process root with
root's HOME: the run would be stored in /root's data directory, and the user's
`wirespeed report` would then find nothing. With `sudo -E` the user's HOME is kept, and
the store SQLite makes there would be root's, which the user can no longer write. So
under sudo the default store is the invoking user's, and whatever wirespeed makes for it
(directories, the file) is given to that user.
"""

from __future__ import annotations

import os
import pwd
from dataclasses import dataclass
from pathlib import Path

from platformdirs import user_data_dir

APP_NAME = "wirespeed"
DEFAULT_DB_NAME = "wirespeed.db"

# The files SQLite keeps beside a database, by suffix of its name.
SQLITE_SIDE_FILES = ("-wal", "-shm", "-journal")


@dataclass(frozen=True)
class Owner:
    """The user the default store belongs to when it is not this process's."""

    name: str
    uid: int
    gid: int
    home: Path


def invoking_user() -> Owner | None:
    """The user who ran `sudo wirespeed ...`, as sudo names them (SUDO_USER, SUDO_UID,
    SUDO_GID); None unless this process is root started by sudo for another user."""
    if os.geteuid() != 0:
        return None  # `sudo -u someone`: that user's own store, which they own already
    name = os.environ.get("SUDO_USER")
    if not name:
        return None
    try:
        entry = pwd.getpwnam(name)
    except KeyError:
        return None  # a name this machine does not know: root's store, as without sudo
    if entry.pw_uid == 0:
        return None
    uid = os.environ.get("SUDO_UID", "")
    if uid.isdigit() and int(uid) != entry.pw_uid:
        return None  # the variables disagree: not sudo's own, trust neither
    gid = os.environ.get("SUDO_GID", "")
    return Owner(
        name=name,
        uid=entry.pw_uid,
        gid=int(gid) if gid.isdigit() else entry.pw_gid,
        home=Path(entry.pw_dir),
    )


def data_dir(owner: Owner | None) -> Path:
    """wirespeed's data directory: this process's, or under sudo the invoking user's.
    sudo drops XDG_DATA_HOME (its env_reset); `sudo -E` keeps the user's, which counts
    then, as the XDG specification says."""
    if owner is None:
        return Path(user_data_dir(APP_NAME))
    xdg = os.environ.get("XDG_DATA_HOME", "")
    base = Path(xdg) if xdg and Path(xdg).is_absolute() else owner.home / ".local" / "share"
    return base / APP_NAME


def default_db_path() -> Path:
    return data_dir(invoking_user()) / DEFAULT_DB_NAME


def shown_default_db_path() -> str:
    """The default store's path as `--help` shows it: ~/... when it is this user's own
    (so a man page made from the parser names no builder's home), else in full (under
    sudo, where ~ would be root's)."""
    owner = invoking_user()
    path = data_dir(owner) / DEFAULT_DB_NAME
    if owner is None:
        home = Path.home()
        if path.is_relative_to(home):
            return str(Path("~") / path.relative_to(home))
    return str(path)


def make_owned_file(path: Path, owner: Owner) -> None:
    """The store file and the directories above it, made if missing, the owner's.

    Made empty before SQLite opens it (an empty file is an empty database): SQLite, run
    as root, gives the -wal, -shm and -journal files it makes the owner of the database
    file, so the store file must be the user's from the start. Files of the store that a
    root-owned run left (`sudo -E` of an older wirespeed, a run killed before it removed
    its -wal) are given back too: otherwise the user's next run cannot write the store.
    """
    missing = []
    for parent in path.parents:
        if parent.exists():
            break
        missing.append(parent)
    for directory in reversed(missing):
        directory.mkdir(mode=0o755, exist_ok=True)
        os.chown(directory, owner.uid, owner.gid)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        pass
    else:
        try:
            os.fchown(fd, owner.uid, owner.gid)
        finally:
            os.close(fd)
    for file in (path, *(path.with_name(path.name + side) for side in SQLITE_SIDE_FILES)):
        hand_over(file, owner)


def hand_over(path: Path, owner: Owner) -> None:
    """A file of the owner's store that root made, given to the owner (if it exists)."""
    try:
        status = path.lstat()
    except FileNotFoundError:
        return
    if status.st_uid == 0 and not path.is_symlink():
        os.chown(path, owner.uid, owner.gid)
