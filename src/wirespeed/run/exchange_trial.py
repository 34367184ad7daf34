"""Run one trial of a kind that measures an exchange between the path's two ends.

start the server → wait until it listens → start the samplers → run the client against
the server's address (through the path, and its tunnel if any) → stop the server and
the samplers → parse the client's output into measurements → judge the hosts.

A kind whose far end answers by itself (ICMP echo: the kernel replies, nothing listens)
has no server: its driver's server_argv gives None, and only the client runs.

The kind's driver (its `driver` hook) is a module of pure functions: the server's and
the client's argv from the test's `options:`, how long the client may take, and the
parser of its output into measurements. Those are the trial's figures, stored, reported,
compared and expected like a benchmark's: nothing beyond the kind's module knows the kind.

As with every trial, failures become a FAILED outcome with the reason, never an
exception (KeyboardInterrupt and SIGTERM pass through after the processes are stopped),
and both ends' raw output is kept.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol, cast

from wirespeed.hosts.base import Process
from wirespeed.model import Measurement, Proto, RawOutput, Side, Trial, TrialOutcome
from wirespeed.run.site import TrialSite
from wirespeed.run.trial_life import (
    Endpoints,
    TrialFailure,
    TrialLife,
    Watching,
    both_streams,
    check_port_free,
    live_trial,
    raw_output,
    wait_listening,
)
from wirespeed.trial_kind import hooks_of

POLL = 0.01


class ExchangeDriver(Protocol):
    """What the driver module of an exchange kind offers (see tools/bounceback.py)."""

    DEFAULT_PORT: int  # where its server listens (none: a port the client ignores)

    def server_argv(self, options: Mapping[str, object], port: int) -> list[str] | None:
        """The server's argv; None where the far end's own stack answers the client."""
        ...

    def client_argv(self, options: Mapping[str, object], target: str, port: int) -> list[str]: ...
    def client_timeout(self, options: Mapping[str, object]) -> float: ...

    def parse(self, text: str) -> tuple[Measurement, ...]:
        """The client's figures; ValueError saying why when its output holds none."""
        ...


def run_exchange_trial(trial: Trial, site: TrialSite) -> TrialOutcome:
    driver = cast(ExchangeDriver, hooks_of(trial.test.tool).driver)
    options = trial.test.bench.as_dict() if trial.test.bench is not None else {}
    exchange = Exchange(driver, options, site.endpoints(), site.on_tick)
    watching = Watching(site.watched(), site.sample_interval, site.samplers)
    return live_trial(trial, exchange, watching)


@dataclass
class Exchange:
    """An exchange trial's own steps: its server, its client, its figures."""

    driver: ExchangeDriver
    options: Mapping[str, object]
    endpoints: Endpoints
    on_tick: Callable[[float], None]
    raw: list[RawOutput] = field(default_factory=list)
    measurements: tuple[Measurement, ...] = ()
    server: Process | None = None
    client: Process | None = None

    def run(self, life: TrialLife) -> None:
        driver, options, endpoints = self.driver, self.options, self.endpoints
        port = driver.DEFAULT_PORT
        server_argv = driver.server_argv(options, port)
        if server_argv is not None:
            check_port_free(endpoints.server, port, Proto.TCP)
            self.server = endpoints.server.start(server_argv)
            wait_listening(endpoints.server, self.server, port, Proto.TCP)
        life.watch()
        client = endpoints.client.start(driver.client_argv(options, endpoints.target, port))
        self.client = client
        status = _wait(client, driver.client_timeout(options), self.on_tick)
        self.raw.append(raw_output(endpoints.client, Side.CLIENT, client, status))
        self.client = None
        try:
            measurements = driver.parse(both_streams(self.raw[-1]))
        except ValueError as error:
            # The driver knows its tool's failures (busybox's ping has no flood mode: its
            # usage text's last line would say nothing) and quotes the tool where it does not.
            exited = f"{self.raw[-1].argv[0]} exited with status {status}: " if status else ""
            raise TrialFailure(f"{exited}{error}") from None
        if status != 0:
            said = [line for line in both_streams(self.raw[-1]).splitlines() if line.strip()]
            detail = f": {said[-1].strip()}" if said else ""
            raise TrialFailure(f"{self.raw[-1].argv[0]} exited with status {status}{detail}")
        self.measurements = measurements

    def stop(self) -> None:
        if self.client is not None:
            status = self.client.stop()
            self.raw.append(raw_output(self.endpoints.client, Side.CLIENT, self.client, status))
        if self.server is not None:
            status = self.server.stop()
            self.raw.append(raw_output(self.endpoints.server, Side.SERVER, self.server, status))

    def outcome(self, life: TrialLife) -> TrialOutcome:
        return life.outcome(result=life.figures(self.measurements), raw=self.raw)


def _wait(client: Process, timeout: float, on_tick: Callable[[float], None]) -> int:
    begun = time.monotonic()
    while True:
        status = client.poll()
        if status is not None:
            return status
        elapsed = time.monotonic() - begun
        if elapsed > timeout:
            client.stop()
            raise TrialFailure(
                f"{client.argv[0]} did not finish within {timeout:.0f} s and was stopped: "
                "the path may be down, or the server unreachable"
            )
        on_tick(elapsed)
        time.sleep(POLL)
