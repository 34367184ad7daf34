"""A client that connected and then hung is reported as hung, not as unreachable.

The client's iperf3 is frozen (SIGSTOP) mid-test and the server then goes away: when the
trial's timeout comes the client's connection is gone from the socket table, and the
reason must still say that it had connected, and what became of the server.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable

import pytest

from wirespeed.lab.lab import Lab
from wirespeed.model import Role, TrialStatus
from wirespeed.plan import expand, parse_plan
from wirespeed.run import trial as trial_module
from wirespeed.run.trial import Endpoints, run_trial

pytestmark = [pytest.mark.root, pytest.mark.slow]

PLAN = """
title: hung
lab: {link: fe}
paths:
  - {name: WAN, topology: endpoint}
defaults: {tool: iperf3, duration: 2}
tests:
  - {id: "1", name: TCP}
  - {id: "2", name: UDP, protocol: udp, rate: 100M}
"""


def signal_in(namespace: str, program: str, sig: signal.Signals) -> None:
    """Signal the program in one lab namespace only: the lab's namespaces share one PID
    namespace, and pkill alone would hit the other end (or another test's iperf3)."""
    pids = subprocess.run(
        ["ip", "netns", "pids", namespace], capture_output=True, text=True, check=False
    ).stdout.split()
    for pid in pids:
        try:
            with open(f"/proc/{pid}/comm") as handle:
                name = handle.read().strip()
        except OSError:
            continue
        if name == program:
            os.kill(int(pid), sig)


@pytest.mark.parametrize("test_id", ["1", "2"], ids=["tcp", "udp"])
def test_a_client_that_hangs_after_its_server_went_away_is_reported_as_hung(
    make_lab: Callable[..., Lab], monkeypatch: pytest.MonkeyPatch, test_id: str
) -> None:
    monkeypatch.setattr(trial_module, "CLIENT_MARGIN", 3.0)  # the timeout, sooner
    lab = make_lab("endpoint", "fe")
    client_ns, server_ns = lab.hosts[Role.CLIENT].namespace, lab.hosts[Role.SERVER].namespace

    def hang_then_lose_the_server() -> None:
        time.sleep(1.0)
        signal_in(client_ns, "iperf3", signal.SIGSTOP)
        time.sleep(0.5)
        signal_in(server_ns, "iperf3", signal.SIGKILL)

    fault = threading.Thread(target=hang_then_lose_the_server, daemon=True)
    fault.start()
    trial = expand(parse_plan(PLAN), only=[test_id])[0]
    hosts = lab.hosts
    outcome = run_trial(
        trial, Endpoints(hosts[Role.CLIENT], hosts[Role.SERVER], lab.server_address)
    )
    fault.join()
    print(outcome.reason)
    assert outcome.status is TrialStatus.FAILED
    assert outcome.reason is not None
    assert "could not connect" not in outcome.reason
    assert "reachable" not in outcome.reason
    assert f"connected to {lab.server_address} port 5201" in outcome.reason
    assert "did not finish" in outcome.reason and "hung" in outcome.reason
    assert "the server was killed by signal 9" in outcome.reason
