"""A PostgreSQL server of a test's own, to stop, freeze and start again: the shared test
server (WIRESPEED_TEST_POSTGRES_URL) must never be. Made by scripts/postgres-for-tests.sh
in a directory and on a port of its own, and purged afterwards."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

SCRIPT = Path(__file__).parents[3] / "scripts" / "postgres-for-tests.sh"
POSTGRES = Path("/usr/lib/postgresql/15/bin/postgres")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class OwnPostgres:
    def __init__(self, directory: Path) -> None:
        self.data = directory / "data"
        self.env = {
            **os.environ,
            "WIRESPEED_PG_DIR": str(self.data),
            "WIRESPEED_PG_PORT": str(_free_port()),
        }
        self.url = ""

    def _script(self, action: str) -> str:
        done = subprocess.run(
            [str(SCRIPT), action],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    def start(self) -> None:
        self.url = self._script("start")

    def stop(self) -> None:
        self._script("stop")

    def purge(self) -> None:
        self._script("purge")

    def _processes(self) -> list[int]:
        """The postmaster and its backends: a frozen server is all of them stopped."""
        postmaster = int((self.data / "postmaster.pid").read_text().split()[0])
        found = [postmaster]
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rpartition(")")[2].split()[1]) == postmaster:
                found.append(int(entry))
        return found

    def signal_all(self, number: signal.Signals) -> None:
        """Every process of the server, if it runs, gets the signal."""
        try:
            processes = self._processes()
        except (OSError, ValueError, IndexError):
            return  # never started, or already gone
        for pid in processes:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, number)

    @contextmanager
    def frozen(self) -> Iterator[None]:
        """Every process of the server stopped (SIGSTOP): its kernel still acknowledges
        every packet, it answers none; continued on leaving."""
        stopped = self._processes()
        for pid in stopped:
            with contextlib.suppress(ProcessLookupError):  # a backend that just ended
                os.kill(pid, signal.SIGSTOP)
        try:
            yield
        finally:
            for pid in stopped:
                with contextlib.suppress(ProcessLookupError):  # a backend that ended meanwhile
                    os.kill(pid, signal.SIGCONT)


@contextmanager
def own_postgres() -> Iterator[OwnPostgres]:
    if not POSTGRES.exists() or shutil.which("runuser") is None:
        import pytest

        pytest.skip("PostgreSQL 15 is not installed (scripts/postgres-for-tests.sh installs it)")
    # Under /var/tmp, traversable by the postgres user (pytest's tmp_path is not).
    directory = Path(tempfile.mkdtemp(prefix="wirespeed-own-pg-", dir="/var/tmp"))
    directory.chmod(0o755)
    server = OwnPostgres(directory)
    try:
        server.start()
        yield server
    finally:
        # A test that failed while the server was frozen must not leave it stopped:
        # a stopped server cannot shut down, and would outlive the suite.
        server.signal_all(signal.SIGCONT)
        try:
            server.purge()
        except BaseException:
            server.signal_all(signal.SIGKILL)
            raise
        finally:
            shutil.rmtree(directory, ignore_errors=True)
