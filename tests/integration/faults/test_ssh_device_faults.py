"""Faults a real device brings, each met in the lab with a dropbear + busybox DUT.

The DUT runs the iperf server and the sampler over SSH (endpoint topology). Each fault
must end its trial with a reason (or, for a dropped SSH connection, survive it), take no
longer than the trial's own timeout, and leave no process of wirespeed's on the device.
"""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from wirespeed.hosts.ssh import SshHost
from wirespeed.hosts.ssh_connection import UNREACHABLE_COOLDOWN
from wirespeed.lab.lab import Lab, LabSpec, down_lab
from wirespeed.lab.links import parse_link
from wirespeed.model import FindingKind, Role, Topology, Trial, TrialOutcome, TrialStatus
from wirespeed.plan import expand, parse_plan
from wirespeed.run.trial import CLIENT_MARGIN, Endpoints, run_trial

pytestmark = [pytest.mark.root, pytest.mark.slow]

PLAN = """
title: faults
lab: {link: gbe}
paths:
  - {name: WAN, topology: endpoint}
defaults: {tool: iperf3, duration: 4}
tests:
  - {id: "1", name: TCP}
  - {id: "2", name: TCP iperf2, tool: iperf2}
"""


@pytest.fixture(scope="module")
def lab() -> Iterator[Lab]:
    name = f"f{__import__('os').getpid()}-faults"
    try:
        built = Lab.up(LabSpec(Topology.ENDPOINT, parse_link("gbe"), name, dut_access="ssh"))
        yield built
        built.down()
    finally:
        down_lab(name)


def device(lab: Lab) -> SshHost:
    host = lab.ssh_host
    assert host is not None
    return host


def in_dut(lab: Lab, *argv: str) -> str:
    """A command in the DUT's namespace from this machine (the fault, not wirespeed)."""
    done = subprocess.run(
        ["ip", "netns", "exec", lab.dut_namespace, *argv],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout


def signal_in_dut(lab: Lab, program: str, signal: str) -> None:
    """Signal the program's processes in the DUT's namespace only: the lab's namespaces
    share one PID namespace, and pkill alone would hit the client's iperf too."""
    pids = subprocess.run(
        ["ip", "netns", "pids", lab.dut_namespace], capture_output=True, text=True, check=False
    ).stdout.split()
    for pid in pids:
        try:
            with open(f"/proc/{pid}/comm") as handle:
                name = handle.read().strip()
        except OSError:
            continue
        if name == program:
            subprocess.run(["kill", f"-{signal}", pid], check=False)


def session_watchdog(lab: Lab) -> set[str]:
    """The open session's watchdog and its sleep: they belong to the session, not to a
    trial, and go when it is closed."""
    watchdog = in_dut(lab, "cat", f"{device(lab).base}/watchdog").strip()
    if not watchdog:
        return set()
    children = in_dut(lab, "pgrep", "-P", watchdog).split()
    return {watchdog, *children}


def device_processes(lab: Lab, *, session: bool = False) -> list[str]:
    """Commands running in the DUT's namespace, dropbear's own excepted (and the open
    session's watchdog, unless session=True)."""
    pids = subprocess.run(
        ["ip", "netns", "pids", lab.dut_namespace], capture_output=True, text=True, check=False
    ).stdout.split()
    expected = set() if session else session_watchdog(lab)
    found = []
    for pid in pids:
        if pid in expected:
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                argv = handle.read().split(b"\0")
            with open(f"/proc/{pid}/stat") as handle:
                state = handle.read().rpartition(")")[2].split()[0]
        except OSError:
            continue
        command = argv[0].decode(errors="replace")
        # An empty command line: the process has let go of its memory, it is exiting.
        if state == "Z" or not command or "dropbear" in command:
            continue
        found.append(b" ".join(argv).decode(errors="replace"))
    return found


def assert_nothing_left(lab: Lab, *, session: bool = False) -> None:
    # SIGKILL is the last thing a close sends: its target may take a moment to go.
    deadline = time.monotonic() + 5
    while device_processes(lab, session=session) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert device_processes(lab, session=session) == []


def trial_for(test_id: str, duration: float = 4) -> Trial:
    return expand(parse_plan(PLAN), duration=duration, only=[test_id])[0]


def run(lab: Lab, test_id: str = "1", duration: float = 4) -> TrialOutcome:
    hosts = lab.device_hosts
    started = time.monotonic()
    outcome = run_trial(
        trial_for(test_id, duration),
        Endpoints(hosts[Role.CLIENT], hosts[Role.SERVER], lab.server_address),
        watch=[("dut", hosts[Role.DUT])],
    )
    # Shown with -s: what each fault did, for whoever reads the run.
    print(f"{time.monotonic() - started:5.1f} s  {outcome.status.value}: {outcome.reason}")
    return outcome


def after(seconds: float, action: Callable[[], object]) -> threading.Thread:
    def later() -> None:
        time.sleep(seconds)
        action()

    thread = threading.Thread(target=later, daemon=True)
    thread.start()
    return thread


def test_a_healthy_trial_runs_the_server_and_sampler_on_the_device(lab: Lab) -> None:
    outcome = run(lab, duration=2)
    assert outcome.status is TrialStatus.OK, outcome.reason
    assert [m.partial for m in outcome.monitors] == [False]
    assert outcome.raw[1].host == lab.dut_namespace  # the server side ran over SSH
    assert_nothing_left(lab)


@pytest.mark.parametrize("test_id", ["1", "2"])
def test_the_iperf_server_killed_mid_trial_fails_the_trial(lab: Lab, test_id: str) -> None:
    program = "iperf3" if test_id == "1" else "iperf"
    killer = after(1.5, lambda: signal_in_dut(lab, program, "KILL"))
    started = time.monotonic()
    outcome = run(lab, test_id)
    killer.join()
    assert time.monotonic() - started < 4 + CLIENT_MARGIN
    assert outcome.status is TrialStatus.FAILED
    # iperf3 says its control or stream socket closed; iperf2's client says only "write
    # failed" on stderr, prints a summary of the 1.5 s it managed and exits 0.
    assert outcome.reason is not None
    if test_id == "2":
        assert "stopped after" in outcome.reason
    assert_nothing_left(lab)


def test_the_link_down_mid_trial_and_back_up_ends_the_trial_within_its_timeout(
    lab: Lab,
) -> None:
    client = lab.namespaces[Role.CLIENT]

    def flap() -> None:
        subprocess.run(["ip", "-n", client, "link", "set", "eth0", "down"], check=True)
        time.sleep(3)
        subprocess.run(["ip", "-n", client, "link", "set", "eth0", "up"], check=True)

    flapper = after(1.0, flap)
    started = time.monotonic()
    outcome = run(lab)
    flapper.join()
    assert time.monotonic() - started < 4 + CLIENT_MARGIN + 5
    if outcome.status is TrialStatus.OK:
        assert outcome.result is not None
        goodput = outcome.result.directions[0].goodput_bps
        assert goodput is not None and goodput < 0.8 * 941e6, (
            "3 s of a dead link must show in the number"
        )
        # ... and be named, with when it happened.
        stalls = [f for f in outcome.findings if f.kind is FindingKind.STALLED]
        print(f"       {[f.message for f in stalls]}")
        assert len(stalls) == 1 and stalls[0].message.startswith("no traffic for "), (
            outcome.findings
        )
    else:
        assert outcome.reason
    assert_nothing_left(lab)


def test_a_dropped_ssh_connection_is_re_established_and_the_trial_completes(lab: Lab) -> None:
    host = device(lab)
    before = host.connection.reconnects
    pid_file = Path(lab.ssh_device.directory / "dropbear.pid")  # type: ignore[union-attr]
    listener = pid_file.read_text().strip()

    def drop() -> None:
        # dropbear forks one process per connection; the listener stays.
        for pid in subprocess.run(
            ["pgrep", "-x", "dropbear"], capture_output=True, text=True, check=False
        ).stdout.split():
            if (
                pid != listener
                and pid
                in subprocess.run(
                    ["ip", "netns", "pids", lab.dut_namespace],
                    capture_output=True,
                    text=True,
                    check=False,
                ).stdout.split()
            ):
                subprocess.run(["kill", "-KILL", pid], check=False)

    dropper = after(1.5, drop)
    outcome = run(lab)
    dropper.join()
    assert outcome.status is TrialStatus.OK, outcome.reason
    assert host.connection.reconnects == before + 1
    assert [m.partial for m in outcome.monitors] == [False]
    assert_nothing_left(lab)


def test_the_port_already_taken_on_the_device_fails_at_once(lab: Lab) -> None:
    squatter = subprocess.Popen(
        ["ip", "netns", "exec", lab.dut_namespace, "iperf3", "-s", "-p", "5201"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        time.sleep(0.5)
        started = time.monotonic()
        outcome = run(lab)
        assert outcome.status is TrialStatus.FAILED
        assert outcome.reason is not None and "already in use" in outcome.reason
        assert time.monotonic() - started < 5
    finally:
        squatter.kill()
        squatter.wait()
    assert_nothing_left(lab)


def test_a_hung_client_is_stopped_after_its_timeout(lab: Lab) -> None:
    # The server on the device freezes (SIGSTOP) once the test runs: the client waits
    # forever for its results.
    freezer = after(1.0, lambda: signal_in_dut(lab, "iperf3", "STOP"))
    started = time.monotonic()
    outcome = run(lab, duration=2)
    freezer.join()
    elapsed = time.monotonic() - started
    assert outcome.status is TrialStatus.FAILED
    assert outcome.reason is not None and "did not finish" in outcome.reason
    assert elapsed < 2 + CLIENT_MARGIN + 8, elapsed
    signal_in_dut(lab, "iperf3", "CONT")
    assert_nothing_left(lab)


def test_an_unreachable_device_fails_the_trial_quickly_and_the_next_one_recovers(
    lab: Lab,
) -> None:
    mgmt = lab.ssh_device.mgmt_namespace  # type: ignore[union-attr]
    # The management link goes dead: SSH packets vanish, as with a device that hangs.
    subprocess.run(["ip", "-n", mgmt, "link", "set", "eth0", "down"], check=True)
    try:
        started = time.monotonic()
        outcome = run(lab, duration=1)
        elapsed = time.monotonic() - started
        assert outcome.status is TrialStatus.FAILED
        assert outcome.reason is not None and "cannot reach" in outcome.reason
        assert elapsed < 30, elapsed
    finally:
        subprocess.run(["ip", "-n", mgmt, "link", "set", "eth0", "up"], check=True)
    time.sleep(UNREACHABLE_COOLDOWN)  # before that, wirespeed does not try again
    outcome = run(lab, duration=1)
    assert outcome.status is TrialStatus.OK, outcome.reason
    assert_nothing_left(lab)


def test_closing_the_session_leaves_nothing_on_the_device(lab: Lab) -> None:
    host = device(lab)
    base = host.base
    host.start(["sleep", "600"])
    host.close()
    lab._ssh_host = None  # the next user of lab.ssh_host gets a new session
    assert_nothing_left(lab, session=True)
    assert in_dut(lab, "ls", "-A", "/tmp/wirespeed").split().count(base.rsplit("/", 1)[1]) == 0
