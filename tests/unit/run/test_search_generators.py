"""Which generator sends from a host, and how a leg is split into streams: by what the
host has (its PATH, as `which` finds programs) and by the plan's `generator:`."""

from __future__ import annotations

from pathlib import Path

import pytest

from wirespeed.errors import MissingToolError
from wirespeed.hosts.local import LocalHost
from wirespeed.run.search_counters import distinct_hosts
from wirespeed.run.search_generators import IPERF2, TCPREPLAY, choose, streams_of
from wirespeed.run.search_legs import Leg, shared_up


@pytest.fixture
def bare_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A host whose PATH holds no tcpreplay."""
    monkeypatch.setenv("PATH", str(tmp_path))


def test_a_named_generator_missing_says_which_package_to_install(bare_path: None) -> None:
    with pytest.raises(MissingToolError) as raised:
        choose(LocalHost("pc"), TCPREPLAY)
    assert raised.value.exit_status == 3
    assert "tcpreplay" in raised.value.message and "pc" in raised.value.message
    assert raised.value.hint is not None and "apt-get install tcpreplay" in raised.value.hint


def test_auto_falls_back_to_iperf2_with_a_note(bare_path: None) -> None:
    name, note = choose(LocalHost("pc"), "auto")
    assert name == IPERF2
    assert note is not None and "pc has no tcpreplay (apt-get install tcpreplay)" in note


def test_iperf2_asked_is_iperf2_whatever_the_host_has() -> None:
    assert choose(LocalHost("pc"), IPERF2) == (IPERF2, None)


def test_each_process_sends_its_share_on_a_port_of_its_own() -> None:
    pc, server = LocalHost("pc"), LocalHost("srv")
    leg = Leg(pc, server, "192.0.2.1", 5800)
    streams = streams_of([leg], 3, {"pc": IPERF2})
    assert [(s.port, round(s.share, 3)) for s in streams] == [
        (5800, 0.333),
        (5810, 0.333),
        (5820, 0.333),
    ]


def test_hosts_shared_by_streams_and_legs_are_counted_once() -> None:
    c1, c2, server = LocalHost("c1"), LocalHost("c2"), LocalHost("srv")
    legs = shared_up((c1, c2), server, "192.0.2.1")["up"]
    pairs = distinct_hosts(legs)
    # Both clients' interfaces, the server's once: it receives both legs.
    assert [(s and s.name, r and r.name) for s, r in pairs] == [("c1", "srv"), ("c2", None)]


def test_a_lab_search_naming_tcpreplay_is_refused_before_it_runs_without_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import os
    import shutil

    from wirespeed.plan import expand, parse_plan
    from wirespeed.run.preflight import preflight

    if os.geteuid() != 0:
        pytest.skip("the lab's preflight asks for root first")
    # This machine's PATH with iperf (what every search needs) and without tcpreplay.
    iperf = shutil.which("iperf")
    assert iperf is not None
    (tmp_path / "iperf").symlink_to(iperf)
    monkeypatch.setenv("PATH", str(tmp_path))
    plan = parse_plan(
        "lab: {link: gbe}\n"
        "paths: [{name: R, topology: router}]\n"
        "tests: [{id: fwd, tool: forwarding, options: {generator: tcpreplay}}]\n"
    )
    with pytest.raises(MissingToolError, match="tcpreplay") as raised:
        preflight(plan, expand(plan))
    assert raised.value.exit_status == 3
