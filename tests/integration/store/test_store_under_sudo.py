"""`sudo wirespeed ...` stores in the invoking user's default store, and leaves it theirs:
with real sudo, for a user made for the test (and removed after it); and that user, not
root, reads a store they may only read. Root: useradd."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

pytestmark = pytest.mark.root

WIRESPEED = Path(sys.executable).with_name("wirespeed")
RUNUSER = shutil.which("runuser") or "/usr/sbin/runuser"  # the user's PATH has no sbin
SEED_OUTPUT = Path(__file__).parents[2] / "fixtures" / "seeds" / "r2s-br0-test1.txt"


@dataclass(frozen=True)
class User:
    name: str
    uid: int
    gid: int
    home: Path

    def env(self, **extra: str) -> dict[str, str]:
        """The environment of this user's login shell, as sudo gets it."""
        return {
            "HOME": str(self.home),
            "USER": self.name,
            "LOGNAME": self.name,
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "LANG": "C.UTF-8",
            **extra,
        }


@pytest.fixture
def user() -> Iterator[User]:
    """A throwaway user who may run anything with sudo, without a password."""
    if shutil.which("sudo") is None:
        pytest.fail("sudo is not installed: apt-get install sudo (scripts/test.sh does)")
    name = f"wstest{os.getpid()}"
    base = Path(tempfile.mkdtemp(prefix="wirespeed-sudo-"))
    base.chmod(0o755)
    home = base / name
    sudoers = Path("/etc/sudoers.d") / f"wirespeed-test-{name}"
    subprocess.run(
        ["useradd", "--create-home", "--home-dir", str(home), "--user-group", name],
        check=True,
        capture_output=True,
    )
    try:
        sudoers.write_text(f"{name} ALL=(root) NOPASSWD: ALL\n")
        sudoers.chmod(0o440)
        import pwd

        entry = pwd.getpwnam(name)
        yield User(name, entry.pw_uid, entry.pw_gid, home)
    finally:
        sudoers.unlink(missing_ok=True)
        subprocess.run(["userdel", "--force", "--remove", name], check=False, capture_output=True)
        shutil.rmtree(base, ignore_errors=True)


def sudo(
    user: User, *argv: str, keep_env: bool = False, **env: str
) -> subprocess.CompletedProcess[str]:
    """`sudo [-E] wirespeed argv...` typed by `user`."""
    return subprocess.run(
        [
            RUNUSER,
            "-u",
            user.name,
            "--",
            "sudo",
            "-n",
            *(["-E"] if keep_env else []),
            str(WIRESPEED),
            *argv,
        ],
        env=user.env(**env),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def as_user(user: User, *argv: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`wirespeed argv...` run by `user` without sudo. This Python may live where the
    user cannot reach it (pyenv under /root): then the system's Python of the same
    version runs wirespeed from this environment's packages."""
    python = sys.executable
    reachable = subprocess.run(
        [RUNUSER, "-u", user.name, "--", python, "-c", "pass"], capture_output=True, check=False
    )
    if reachable.returncode != 0:
        python = f"/usr/bin/python{sys.version_info.major}.{sys.version_info.minor}"
        if not Path(python).exists():
            pytest.skip(f"{user.name} can run neither {sys.executable} nor {python}")
    code = (
        "import site, sys; site.addsitedir(sys.argv.pop(1)); "
        "from wirespeed.cli.app import main; sys.exit(main(sys.argv[1:]))"
    )
    return subprocess.run(
        [
            RUNUSER,
            "-u",
            user.name,
            "--",
            python,
            "-c",
            code,
            sysconfig.get_paths()["purelib"],
            *argv,
        ],
        env=user.env(**env),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def owners(paths: list[Path]) -> dict[str, int]:
    return {str(p): p.stat().st_uid for p in paths}


def test_sudo_stores_in_the_users_store_and_leaves_it_theirs(user: User) -> None:
    done = sudo(user, "import", "--title", "under sudo", str(SEED_OUTPUT))
    assert done.returncode == 0, done.stderr
    data = user.home / ".local" / "share"
    store = data / "wirespeed" / "wirespeed.db"
    assert store.is_file(), done.stderr
    made = [user.home / ".local", data, data / "wirespeed", store]
    assert owners(made) == {str(p): user.uid for p in made}
    assert store.stat().st_gid == user.gid
    # SQLite's -wal and -shm are gone once the store is closed, or are the user's too.
    beside = [p for p in store.parent.iterdir() if p != store]
    assert owners(beside) == {str(p): user.uid for p in beside}

    # The user reads it, and writes it, without root.
    listed = as_user(user, "runs")
    assert listed.returncode == 0, listed.stderr
    assert "under sudo" in listed.stdout
    again = as_user(user, "import", "--title", "without sudo", str(SEED_OUTPUT))
    assert again.returncode == 0, again.stderr
    # And sudo finds both.
    both = sudo(user, "runs")
    assert both.returncode == 0, both.stderr
    assert "under sudo" in both.stdout and "without sudo" in both.stdout


def test_sudo_e_keeps_the_users_data_directory_and_leaves_the_store_theirs(user: User) -> None:
    data = user.home / "data"  # XDG_DATA_HOME, which sudo -E passes on
    done = sudo(user, "import", str(SEED_OUTPUT), keep_env=True, XDG_DATA_HOME=str(data))
    assert done.returncode == 0, done.stderr
    store = data / "wirespeed" / "wirespeed.db"
    made = [data, data / "wirespeed", store]
    assert owners(made) == {str(p): user.uid for p in made}
    # Without sudo, the user's wirespeed writes the same store, and reads both runs.
    again = as_user(
        user, "import", "--title", "without sudo", str(SEED_OUTPUT), XDG_DATA_HOME=str(data)
    )
    assert again.returncode == 0, again.stderr
    listed = as_user(user, "runs", XDG_DATA_HOME=str(data))
    assert listed.returncode == 0, listed.stderr
    assert "import of 1 file(s)" in listed.stdout and "without sudo" in listed.stdout


@pytest.mark.parametrize("directory_writable", [True, False], ids=["own-dir", "root-dir"])
def test_a_user_reads_a_store_they_may_only_read(user: User, directory_writable: bool) -> None:
    """Without root: a file of mode 0444, in a directory the user may write (SQLite makes
    the -shm file mode=ro needs) or not (then it is read as immutable)."""
    shelf = user.home / "shelf"
    db = shelf / "runs.db"
    status = subprocess.run(
        [str(WIRESPEED), "import", "--db", str(db), "--title", "kept", str(SEED_OUTPUT)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert status.returncode == 0, status.stderr
    os.chown(db, user.uid, user.gid)
    db.chmod(0o444)
    if directory_writable:
        os.chown(shelf, user.uid, user.gid)

    listed = as_user(user, "runs", "--db", str(db))
    assert listed.returncode == 0, listed.stderr
    assert "kept" in listed.stdout
    report = as_user(user, "report", "--db", str(db), "--format", "csv")
    assert report.returncode == 0, report.stderr
    refused = as_user(user, "import", "--db", str(db), str(SEED_OUTPUT))
    assert refused.returncode == 2
    assert "this user may not write the file" in refused.stderr
