"""Helpers of the lab tests: lab names, and iperf3 between a lab's roles."""

from __future__ import annotations

import itertools
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from wirespeed.hosts.local import LocalProcess
from wirespeed.hosts.sockets import listening
from wirespeed.lab.lab import Lab
from wirespeed.model import Proto, Role

MakeLab = Callable[..., Lab]  # the make_lab fixture of tests/integration/conftest.py
_serial = itertools.count(1)


def unique_lab_name(label: str) -> str:
    return f"u{os.getpid()}-{next(_serial)}-{label}"


@dataclass(frozen=True)
class Iperf3Run:
    client: dict[str, Any]
    server: dict[str, Any]

    @property
    def received_mbit(self) -> float:
        return float(self.client["end"]["sum_received"]["bits_per_second"]) / 1e6

    @property
    def source_seen_by_server(self) -> str:
        return str(self.server["start"]["connected"][0]["remote_host"])


def start_iperf3_server(lab: Lab, port: int) -> LocalProcess:
    host = lab.hosts[Role.SERVER]
    server = host.start(["iperf3", "-s", "-1", "-J", "-p", str(port)])
    deadline = time.monotonic() + 5
    while not listening(host, server.pid, port, Proto.TCP):
        assert server.poll() is None, server.stderr()
        assert time.monotonic() < deadline, "iperf3 server did not listen within 5 s"
        time.sleep(0.005)
    return server


def iperf3(lab: Lab, port: int, seconds: float, *options: str) -> Iperf3Run:
    server = start_iperf3_server(lab, port)
    try:
        argv = ["iperf3", "-c", lab.server_address, "-p", str(port), "-J", "-t", str(seconds)]
        completed = lab.hosts[Role.CLIENT].run([*argv, *options], timeout=seconds + 20)
        server.wait(10)
    finally:
        server.stop()
    client_json = json.loads(completed.stdout)
    assert "error" not in client_json, client_json["error"]
    return Iperf3Run(client_json, json.loads(server.stdout()))
