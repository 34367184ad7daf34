"""Run one trial of a kind that measures an exchange between the path's two ends.

start the server → wait until it listens → start the samplers → run the client against
the server's address (through the path, and its tunnel if any) → stop the server and
the samplers → parse the client's output into measurements → judge the hosts.

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
from typing import Protocol, cast

from wirespeed.errors import WirespeedError
from wirespeed.hosts.base import Host, Process
from wirespeed.model import Measurement, Proto, RawOutput, Result, Side, Trial, TrialOutcome
from wirespeed.run.site import TrialSite
from wirespeed.run.trial_life import (
    TrialFailure,
    both_streams,
    check_port_free,
    judged_monitors,
    raw_output,
    start_samplers,
    stop_samplers,
    trial_outcome,
    wait_listening,
)
from wirespeed.sampling.model import SampleSet
from wirespeed.sampling.session import TrialSampler
from wirespeed.signals import deferred_signals
from wirespeed.trial_kind import hooks_of

POLL = 0.01


class ExchangeDriver(Protocol):
    """What the driver module of an exchange kind offers (see tools/bounceback.py)."""

    DEFAULT_PORT: int

    def server_argv(self, options: Mapping[str, object], port: int) -> list[str]: ...
    def client_argv(self, options: Mapping[str, object], target: str, port: int) -> list[str]: ...
    def client_timeout(self, options: Mapping[str, object]) -> float: ...

    def parse(self, text: str) -> tuple[Measurement, ...]:
        """The client's figures; ValueError saying why when its output holds none."""
        ...


def run_exchange_trial(trial: Trial, site: TrialSite) -> TrialOutcome:
    driver = cast(ExchangeDriver, hooks_of(trial.test.tool).driver)
    options = trial.test.bench.as_dict() if trial.test.bench is not None else {}
    endpoints = site.endpoints()
    port = driver.DEFAULT_PORT
    started_at = time.time()
    raw: list[RawOutput] = []
    measurements: tuple[Measurement, ...] = ()
    reason: str | None = None
    samplers: list[tuple[str, Host, TrialSampler | str]] = []
    sample_sets: list[tuple[str, Host, SampleSet | str]] = []
    server: Process | None = None
    client: Process | None = None
    try:
        check_port_free(endpoints.server, port, Proto.TCP)
        server = endpoints.server.start(driver.server_argv(options, port))
        wait_listening(endpoints.server, server, port, Proto.TCP)
        samplers = start_samplers(site.watched(), site.sample_interval, site.samplers)
        client = endpoints.client.start(driver.client_argv(options, endpoints.target, port))
        status = _wait(client, driver.client_timeout(options), site.on_tick)
        raw.append(raw_output(endpoints.client, Side.CLIENT, client, status))
        client = None
        if status != 0:
            said = [line for line in both_streams(raw[-1]).splitlines() if line.strip()]
            detail = f": {said[-1].strip()}" if said else ""
            raise TrialFailure(f"{raw[-1].argv[0]} exited with status {status}{detail}")
        try:
            measurements = driver.parse(both_streams(raw[-1]))
        except ValueError as error:
            raise TrialFailure(str(error)) from None
    except TrialFailure as failure:
        reason = str(failure)
    except (WirespeedError, TimeoutError) as error:
        reason = error.message if isinstance(error, WirespeedError) else str(error)
    finally:
        with deferred_signals():
            if client is not None:
                raw.append(raw_output(endpoints.client, Side.CLIENT, client, client.stop()))
            if server is not None:
                raw.append(raw_output(endpoints.server, Side.SERVER, server, server.stop()))
            sample_sets = stop_samplers(samplers)
    monitors, findings = judged_monitors(sample_sets)
    result = None
    if reason is None:
        result = Result(
            tool=trial.test.tool, protocol=None, directions=(), measurements=measurements
        )
    return trial_outcome(
        trial, started_at, reason, result=result, raw=raw, monitors=monitors, findings=findings
    )


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
