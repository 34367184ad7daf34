"""A whole run over loopback: plan → runner → store → report, with real iperf, no root."""

from __future__ import annotations

from pathlib import Path

from plans import LOOPBACK

from support.run_report import render_markdown
from wirespeed.model import Flow, TrialStatus
from wirespeed.plan import expand, parse_plan
from wirespeed.report import build_report
from wirespeed.run.runner import Runner
from wirespeed.store import Store


def test_every_trial_is_measured_stored_and_reported(tmp_path: Path) -> None:
    plan = parse_plan(LOOPBACK, source="loopback.yaml")
    with Store.open(tmp_path / "runs.db") as store:
        outcome = Runner(plan, store).run(expand(plan))
        record = store.load_run(outcome.run_id)

    assert [o.status for o in outcome.outcomes] == [TrialStatus.OK] * 3, [
        o.reason for o in outcome.outcomes
    ]
    by_id = {o.trial.test.id: o for o in record.outcomes}
    tcp = by_id["1"].result
    assert tcp is not None and tcp.direction(Flow.UP) is not None
    udp = by_id["2"].result
    up = udp.direction(Flow.UP) if udp else None
    assert up is not None and up.udp is not None and up.received is not None
    # 100 Mbit/s of payload asked for, received over loopback: no shaping, no loss to speak of.
    assert 90e6 < up.received.bits_per_second < 105e6
    both = by_id["3"].result
    assert both is not None and {d.flow for d in both.directions} == {Flow.UP, Flow.DOWN}
    # Both ends' raw outputs are kept, so parsing can be redone from the store.
    assert {r.side.value for r in by_id["1"].raw} == {"client", "server"}
    assert "iperf2 UDP 100M" in render_markdown(build_report(record))


def test_a_taken_port_fails_the_trial_with_a_clear_reason_and_the_run_goes_on(
    tmp_path: Path,
) -> None:
    import socket

    plan = parse_plan(LOOPBACK, source="loopback.yaml")
    blocker = socket.socket()
    blocker.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    blocker.bind(("127.0.0.1", 5201))  # iperf3's port: test 1 cannot run
    blocker.listen()
    try:
        with Store.open(tmp_path / "runs.db") as store:
            outcome = Runner(plan, store).run(expand(plan))
            stored = store.load_run(outcome.run_id)
    finally:
        blocker.close()
    statuses = {o.trial.test.id: o.status for o in outcome.outcomes}
    assert statuses == {"1": TrialStatus.FAILED, "2": TrialStatus.OK, "3": TrialStatus.OK}
    reason = outcome.outcomes[0].reason or ""
    assert "port 5201 is already in use" in reason
    assert stored.outcomes[0].reason == reason  # the reason is stored with the trial
