"""A host that cannot wait a fraction of a second samples every whole second, and says
so: OpenWrt builds busybox without fractional `read -t` and `sleep`."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from sampling_fixtures import BUSYBOX, R4S_BOARD, busybox_path, run_sampler

from wirespeed.hosts.local import LocalHost
from wirespeed.sampling.session import Sampler
from wirespeed.sampling.stream import parse_stream
from wirespeed.sampling.summary import summarize

needs_busybox = pytest.mark.skipif(BUSYBOX is None, reason="busybox is not installed")


def _tools(directory: Path, *names: str) -> str:
    """A PATH with only these commands of this machine."""
    directory.mkdir(exist_ok=True)
    for name in names:
        found = shutil.which(name)
        if found is None:
            pytest.skip(f"needs {name}")
        (directory / name).symlink_to(found)
    return str(directory)


@needs_busybox
@pytest.mark.process
def test_a_busybox_without_fractions_samples_every_second_and_says_so(tmp_path: Path) -> None:
    path = busybox_path(tmp_path / "bin", whole_seconds=True)
    stream = parse_stream(run_sampler(R4S_BOARD, seconds=2, interval=0.1, path=path))
    assert stream.interval == 1.0 and stream.requested_interval == 0.1
    assert stream.interval_raised and stream.wait == "read"  # read -t 1: no fork a tick
    assert 3 <= len(stream.snapshots) <= 4
    gaps = [b.t - a.t for a, b in zip(stream.snapshots, stream.snapshots[1:], strict=False)]
    assert all(0.9 <= gap <= 1.2 for gap in gaps), gaps


@needs_busybox
@pytest.mark.process
def test_the_same_busybox_keeps_a_whole_interval(tmp_path: Path) -> None:
    path = busybox_path(tmp_path / "bin", whole_seconds=True)
    stream = parse_stream(run_sampler(R4S_BOARD, seconds=2, interval=2, path=path))
    assert stream.interval == 2.0 and not stream.interval_raised and stream.wait == "read"


@needs_busybox
@pytest.mark.process
def test_a_busybox_with_fractions_keeps_the_interval(tmp_path: Path) -> None:
    path = busybox_path(tmp_path / "bin")
    stream = parse_stream(run_sampler(R4S_BOARD, seconds=0.6, interval=0.2, path=path))
    assert stream.interval == 0.2 and not stream.interval_raised and stream.wait == "read"


@pytest.mark.process
def test_dash_and_a_sleep_without_fractions_sample_every_second(tmp_path: Path) -> None:
    path = Path(_tools(tmp_path / "bin", "dash", "awk", "cat", "kill"))
    real_sleep = shutil.which("sleep")
    assert real_sleep is not None
    sleep = path / "sleep"
    sleep.write_text(
        "#!/bin/sh\n"
        "case $1 in *.*) echo \"sleep: invalid number '$1'\" >&2; exit 1 ;; esac\n"
        f'exec {real_sleep} "$@"\n'
    )
    sleep.chmod(0o755)
    stream = parse_stream(
        run_sampler(R4S_BOARD, seconds=2, interval=0.25, shell="dash", path=str(path))
    )
    assert stream.interval == 1.0 and stream.requested_interval == 0.25
    assert stream.wait == "sleep"
    assert 3 <= len(stream.snapshots) <= 4


@pytest.mark.process
def test_dash_alone_with_a_fractional_sleep_keeps_the_interval(tmp_path: Path) -> None:
    path = _tools(tmp_path / "bin", "dash", "awk", "cat", "kill", "sleep")
    stream = parse_stream(run_sampler(R4S_BOARD, seconds=1, interval=0.25, shell="dash", path=path))
    assert stream.interval == 0.25 and stream.wait == "sleep"


@needs_busybox
@pytest.mark.process
def test_the_session_and_its_summary_record_the_interval_kept_and_the_one_asked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The host runs `sh` from its PATH, as an SSH device would.
    monkeypatch.setenv("PATH", busybox_path(tmp_path / "bin", whole_seconds=True))
    running = Sampler.start(LocalHost(), interval=0.1, root=str(R4S_BOARD), max_runtime=30)
    assert running.wait_for_ticks(2, timeout=5)
    samples = running.stop()
    assert not samples.partial, samples.reason
    assert samples.interval == 1.0 and samples.requested_interval == 0.1
    assert samples.interval_raised
    summary = summarize(samples)
    assert summary.interval_s == 1.0 and summary.requested_interval_s == 0.1
