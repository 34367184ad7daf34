"""The boot script's lines reach a real system log: busybox syslogd on a /dev/log of its
own, in a private mount namespace (this machine's /dev is not touched)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from wirespeed.facts import TreeSource, collect
from wirespeed.tune import suggest
from wirespeed.tune.keep import from_plan
from wirespeed.tune.keep_script import ROOT_VARIABLE, render_script

pytestmark = pytest.mark.root
R4S = Path(__file__).resolve().parents[2] / "fixtures" / "boards" / "r4s"

# A /dev with nothing but null, syslogd listening on its /dev/log, the script, then the log.
BOOT = """
set -e
mount -t tmpfs wirespeed-test-dev /dev
mknod -m 666 /dev/null c 1 3
busybox syslogd -n -O "$1" &
syslogd=$!
i=0
while [ ! -S /dev/log ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
status=0
busybox sh "$2" || status=$?
sleep 0.5
kill $syslogd
exit $status
"""


def test_one_line_per_knob_reaches_the_system_log(tmp_path: Path) -> None:
    if shutil.which("busybox") is None or shutil.which("unshare") is None:
        pytest.skip("busybox and unshare are needed")
    tree = tmp_path / "r4s"
    shutil.copytree(R4S, tree, symlinks=True)
    facts = collect(TreeSource(R4S))
    script = tmp_path / "wirespeed-tune"
    script.write_text(render_script(from_plan(suggest(facts), facts), "wirespeed-tune"))
    messages = tmp_path / "messages"
    unshare = ["unshare", "-m", "--propagation", "private", "busybox", "sh", "-c", BOOT, "boot"]
    booted = subprocess.run(
        [*unshare, str(messages), str(script)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={"PATH": "/usr/bin:/bin:/usr/sbin:/sbin", ROOT_VARIABLE: str(tree)},
    )
    assert booted.returncode == 0, booted.stderr
    # "Dec  5 13:42:41 vm user.notice wirespeed-tune: ...": the day is padded with a
    # space before 10, so the message is found by its tag, not by counting fields.
    logged = [line.partition(" wirespeed-tune: ") for line in messages.read_text().splitlines()]
    assert [f"wirespeed-tune: {said}" for _, tag, said in logged if tag] == [
        "wirespeed-tune: eth0: IRQ 27 (eth0) smp_affinity: 3f -> 10",
        "wirespeed-tune: eth0: rx-0 rps_cpus: 0 -> 10",
        "wirespeed-tune: eth1: IRQ 234 (eth1) smp_affinity: 3f -> 20",
        "wirespeed-tune: eth1: rx-0 rps_cpus: 0 -> 20",
    ]
