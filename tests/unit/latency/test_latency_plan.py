"""The plan's keys of latency under load: lab `queue:`, test `probes:` and `congestion:`."""

from __future__ import annotations

import textwrap

import pytest

from wirespeed.model import Probes
from wirespeed.plan import Plan, PlanError, parse_plan
from wirespeed.tools import iperf2, iperf3

PLAN = """
lab: {{link: {link}, queue: {queue}}}
paths:
  - {{name: router, topology: router}}
tests:
  - {{id: up, tool: {tool}, duration: 6, probes: {probes}, congestion: cubic}}
"""


def plan_of(
    link: str = "100mbit", queue: str = "40ms", probes: str = "irtt", tool: str = "iperf3"
) -> Plan:
    text = PLAN.format(link=link, queue=queue, probes=probes, tool=tool)
    return parse_plan(textwrap.dedent(text), source="plan.yaml")


def problems(**keys: str) -> list[str]:
    with pytest.raises(PlanError) as caught:
        plan_of(**keys)
    return [f"{p.line}:{p.column}: {p.message}" for p in caught.value.problems]


def test_a_bufferbloated_lab_and_a_probed_upload() -> None:
    plan = plan_of()
    assert plan.lab is not None
    assert plan.lab.link.queue == pytest.approx(0.040)
    assert plan.lab.link.rate_bps == 100_000_000
    (test,) = plan.tests
    assert test.spec.probes is Probes.IRTT
    assert test.spec.congestion == "cubic"
    assert iperf3.client_argv(test.spec, "198.19.1.2", 5201)[-2:] == ["-C", "cubic"]
    assert iperf2.client_argv(test.spec, "198.19.1.2", 5001)[-2:] == ["-Z", "cubic"]


def test_ping_alone_may_be_asked_for() -> None:
    (test,) = plan_of(probes="ping", tool="iperf2").tests
    assert test.spec.probes is Probes.PING


def test_a_queue_without_its_unit_is_refused_with_its_position() -> None:
    (message,) = problems(queue="40")
    assert message.startswith("2:") and "with its unit" in message


def test_a_queue_on_an_unshaped_link_is_refused() -> None:
    (message,) = problems(link="unshaped")
    assert "a queue needs a shaped link" in message


def test_an_unknown_prober_is_refused() -> None:
    (message,) = problems(probes="fping")
    assert message.startswith("6:") and "irtt" in message and "ping" in message
