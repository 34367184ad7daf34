"""Both ends' network interfaces cross-check a search trial: packets that never left the
sender's interfaces were its own queue's drops, not offered to the device (the trial
counts what left, so it is generator-limited and the device is not blamed); iperf
counting more received than came in at the receiver is said to be untrustworthy."""

from __future__ import annotations

from wirespeed.model import Finding, FindingKind
from wirespeed.run.search_counters import COUNTER_WRAP, wire_counted
from wirespeed.run.search_load import Cell
from wirespeed.run.search_trial import _findings
from wirespeed.search.log import InterfaceCounts, SearchLog, from_json, to_json
from wirespeed.search.model import SearchResult, TrialResult


def _log(*trials: TrialResult, interfaces: tuple[InterfaceCounts | None, ...]) -> SearchLog:
    result = SearchResult(goals=(), trials=trials, algorithm="mlrsearch")
    return SearchLog(64, "up", result, 1_000_000_000, 1_488_095.2, (), interfaces)


def test_the_legs_counts_are_summed_and_a_32_bit_counter_may_wrap() -> None:
    # (tx, rx) per interface, of the sender and the receiver of two legs.
    before = [
        ({"eth0": (100, 3)}, {"eth0": (9, 5_000)}),
        ({"eth0": (COUNTER_WRAP - 10, 0), "br-lan": (50, 0)}, {"wan": (0, 7)}),
    ]
    after = [
        ({"eth0": (15_100, 3)}, {"eth0": (9, 19_990)}),
        ({"eth0": (20, 0), "br-lan": (80, 0)}, {"wan": (0, 15_007)}),
    ]
    assert wire_counted(before, after) == InterfaceCounts(tx=15_000 + 30 + 30, rx=14_990 + 15_000)
    # A host whose file could not be read leaves the trial without interface counts;
    # so does one whose interfaces changed (a NIC re-created mid-trial lost its count).
    assert wire_counted([(None, {"eth0": (0, 0)})], [(None, {"eth0": (0, 9)})]) is None
    gone = [({"eth0": (100, 0), "usb0": (0, 0)}, {"eth0": (0, 0)})]
    back = [({"eth0": (15_100, 0)}, {"eth0": (0, 15_000)})]
    assert wire_counted(gone, back) is None


def test_interface_counts_survive_the_log_and_old_logs_have_none() -> None:
    trial = TrialResult(intended=15_000.0, duration=1.0, sent=15_000, received=14_990)
    log = _log(trial, interfaces=(InterfaceCounts(15_004, 14_993),))
    assert from_json(to_json(log)).interfaces == log.interfaces
    old = to_json(_log(trial, interfaces=())).replace(',\n   "interfaces": null', "")
    assert '"interfaces"' not in old and from_json(old).interfaces == ()


def _findings_of(
    trial: TrialResult, wire: InterfaceCounts, *, written: int, got: int
) -> list[Finding]:
    """What a cell of one trial says, iperf having written `written` and counted `got`."""
    cell = Cell(interfaces=[wire], counters=[None], iperf_received=[got], iperf_sent=[written])
    return _findings(_log(trial, interfaces=(wire,)), cell)


def test_what_the_senders_queue_held_back_is_the_generators_shortfall() -> None:
    # iperf wrote 150,000 datagrams; 148,500 left the interface; the trial counts those.
    trial = TrialResult(intended=15_000.0, duration=10.0, sent=148_500, received=148_500)
    wire = InterfaceCounts(tx=148_500, rx=148_503)
    (finding,) = _findings_of(trial, wire, written=150_000, got=148_500)
    assert finding.kind is FindingKind.GENERATOR_LIMITED
    assert "1,500 of 150,000 held back" in finding.message
    assert trial.generator_limited  # 99.0 % of the load asked: never the device's loss


def test_iperf_counting_more_than_came_in_is_suspect() -> None:
    trial = TrialResult(intended=15_000.0, duration=10.0, sent=150_000, received=150_000)
    wire = InterfaceCounts(tx=150_010, rx=140_000)
    (finding,) = _findings_of(trial, wire, written=150_000, got=150_000)
    assert finding.kind is FindingKind.SUSPECT
    assert "150,000 against 140,000" in finding.message
    # Within the slack (ARP, iperf's repeated final datagram): nothing to say.
    fine = InterfaceCounts(tx=150_010, rx=149_990)
    assert _findings_of(trial, fine, written=150_000, got=150_000) == []
