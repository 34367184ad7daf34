"""A server left running over several tests: one result per test
(tests/fixtures/capture_streams.sh, six tests of 1 to 8 streams one after another)."""

from __future__ import annotations

from pathlib import Path

import pytest

from wirespeed.model import Flow, Side
from wirespeed.tools import iperf2
from wirespeed.tools.detect import parse_all
from wirespeed.tools.iperf2_serverlog import split_tests

CAPTURES = Path(__file__).parents[2] / "fixtures" / "iperf2"
LOG = CAPTURES / "serverlog-six-tests.server.txt"
STREAMS = [1, 4, 2, 1, 8, 3]  # -P of each client, in order


def test_a_server_log_of_six_tests_gives_six_results_with_their_own_streams() -> None:
    tests = parse_all(LOG.read_text())
    assert len(tests) == 6
    for (part, result), streams in zip(tests, STREAMS, strict=True):
        assert part.startswith("---") and "Server listening on TCP port 5201" in part
        up = result.direction(Flow.UP)
        assert up is not None and up.received is not None
        assert len(up.streams) == streams
        # A 100 Mbit/s link: each test's total is near 94.1 Mbit/s, not 6 tests' added.
        assert 80e6 < up.received.bits_per_second < 96e6


@pytest.mark.parametrize("index", range(6))
def test_each_test_of_the_log_received_what_its_client_sent(index: int) -> None:
    client_file = CAPTURES / f"serverlog-six-tests-{index + 1}-p{STREAMS[index]}.client.txt"
    client = iperf2.parse(client_file.read_text(), Side.CLIENT).direction(Flow.UP)
    _, server = parse_all(LOG.read_text())[index]
    received = server.direction(Flow.UP)
    assert client is not None and client.sent is not None
    assert received is not None and received.received is not None
    assert received.received.bytes == client.sent.bytes


@pytest.mark.parametrize(
    "path",
    sorted(p for p in CAPTURES.glob("*.server.txt") if "serverlog" not in p.name),
    ids=lambda p: p.name,
)
def test_a_server_log_of_one_test_stays_whole(path: Path) -> None:
    assert split_tests(path.read_text()) == [path.read_text()]
