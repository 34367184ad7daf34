"""The benchmark driver protocol's shared parts: labels added to measurements, a command
that keeps only what was asked, a command run in its own directory, and the message of
a missing program."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from wirespeed.errors import MissingToolError
from wirespeed.hosts.local import LocalHost
from wirespeed.model import Better, Measurement, Tool
from wirespeed.run.bench_trial import _argv, find_program
from wirespeed.tools import openssl, sevenzip, unixbench
from wirespeed.tools.bench import Command, with_labels
from wirespeed.trial_kind import hooks_of, tools

AES = Measurement("AES-128-CBC", "B/s", Better.HIGHER, 1.0, (("block", "1 KB"),))


def test_a_commands_labels_follow_the_parsers() -> None:
    (labelled,) = with_labels([AES], (("api", "EVP"),))
    assert labelled.labels == (("block", "1 KB"), ("api", "EVP"))
    assert labelled.item == "AES-128-CBC 1 KB, EVP"


def test_a_command_keeps_only_the_asked_labels() -> None:
    command = Command(("openssl",), only=(("block", frozenset({"1 KB"})),))
    small = Measurement("AES-128-CBC", "B/s", Better.HIGHER, 1.0, (("block", "16 B"),))
    assert command.keeps(AES) and not command.keeps(small)
    assert Command(("openssl",)).keeps(small)


@pytest.mark.process
def test_a_command_runs_in_its_directory_whatever_its_name(tmp_path: Path) -> None:
    # The directory is sh's $1, never part of the script: quotes and `$(...)` stay text.
    odd = tmp_path / "Unix Bench $(touch pwned) 'x'"
    odd.mkdir()
    argv = _argv(Command(("pwd",), cwd=str(odd)))
    done = subprocess.run(argv, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == str(odd)
    assert not (tmp_path / "pwned").exists() and not Path("pwned").exists()


def test_each_benchmark_tool_has_its_driver() -> None:
    assert hooks_of(Tool.OPENSSL).driver is openssl
    assert hooks_of(Tool.SEVENZIP).driver is sevenzip
    assert hooks_of(Tool.UNIXBENCH).driver is unixbench
    assert hooks_of(Tool.IPERF3).driver is None


@pytest.mark.process
def test_a_missing_program_names_where_to_get_it(tmp_path: Path) -> None:
    host = LocalHost(name="here")
    with pytest.raises(MissingToolError) as missing:
        find_program(host, unixbench, {"directory": str(tmp_path)})
    assert missing.value.message == f"./Run in {tmp_path} is not installed on here"
    assert missing.value.hint is not None and "kdlucas/byte-unixbench" in missing.value.hint
    error = MissingToolError("7zz or 7z or 7za", "r4s", sevenzip.PACKAGES)
    assert error.hint == "install it: Debian: apt-get install 7zip; OpenWrt: opkg install p7zip"


@pytest.mark.parametrize("tool", tools())
def test_only_a_benchmark_on_one_host_has_a_driver_and_options(tool: Tool) -> None:
    from wirespeed.model import BenchSpec, TestCase, TestSpec
    from wirespeed.tools.bench import benchmark_of

    options = BenchSpec(options=(("seconds", 3),))
    test = TestCase(id="t", name="t", tool=tool, spec=TestSpec()).with_options(options)
    found = benchmark_of(test)
    # Bounceback keeps its options in `bench` too, and a search has a driver of its
    # own: neither runs on one host.
    if tool.moves_traffic:
        assert found is None
    else:
        assert found == (hooks_of(tool).driver, options)
        assert benchmark_of(test.with_options(None)) is None
