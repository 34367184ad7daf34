"""The faults a soak injects into a lab DUT, run against a DUT in Python (no program
runs): each kind's commands and kernel lines, in order; the times kept; a soak that
ends while a fault is in force ends it and keeps it with the time it lasted; a fault
that cannot be applied is said, and the next one still runs."""

from __future__ import annotations

import signal
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import SimpleNamespace

import pytest

from wirespeed.errors import HostError
from wirespeed.hosts.base import Completed
from wirespeed.soak.faults import (
    DEVICE_FAULT_KINDS,
    FAULT_KINDS,
    NFT_TABLE,
    Fault,
    FaultSchedule,
    Injected,
)


class _Dut:
    """The lab DUT's namespace as a fault sees it: the commands it was given and the
    kernel lines written, each with when; `refuse` fails commands that start with it."""

    name = "wirespeed-f-dut"

    def __init__(self, refuse: str | None = None) -> None:
        self.done: list[tuple[float, str]] = []
        self.refuse = refuse
        self.changed = threading.Event()

    def run(self, argv: Sequence[str], *, timeout: float = 30.0) -> Completed:
        text = " ".join(argv)
        if self.refuse is not None and text.startswith(self.refuse):
            return Completed(tuple(argv), 2, "", "Cannot find device")
        assert timeout == 10  # a DUT that hangs holds the soak up 10 s at most
        self.done.append((time.time(), text))
        self.changed.set()
        return Completed(tuple(argv), 0, "", "")

    def write_file(self, path: str, text: str) -> None:
        assert path == "/dev/kmsg"
        self.done.append((time.time(), f"kmsg {text}"))

    def read_file(self, path: str) -> str:
        raise HostError(path)

    def start(self, argv: Sequence[str], *, on_line: object = None) -> object:
        raise HostError("no program is started by a fault")

    def which(self, program: str) -> str | None:
        return None


def _until(condition: Callable[[], bool], seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline
        time.sleep(0.005)


def _schedule(dut: _Dut, *faults: Fault, origin: float | None = None) -> FaultSchedule:
    return FaultSchedule(
        dut,  # type: ignore[arg-type]
        faults,
        time.time() if origin is None else origin,
        lab="f",  # on the DUT's `wan` port unless told otherwise
    )


def test_a_link_fault_downs_the_port_for_its_time_with_the_drivers_lines() -> None:
    dut = _Dut()
    origin = time.time()
    schedule = _schedule(dut, Fault(at=0.05, down=0.1, kind="link"), origin=origin)
    schedule.start()
    _until(lambda: len(schedule.done) == 1)
    schedule.stop()
    assert [text for _, text in dut.done] == [
        "kmsg <4>wirespeed-lab[f]: igb 0000:01:00.0 wan: Detected Tx Unit Hang\n",
        "ip link set dev wan down",
        "ip link set dev wan up",
        "kmsg <4>wirespeed-lab[f]: igb 0000:01:00.0 wan: igb: wan NIC Link is Up 1000 Mbps "
        "Full Duplex\n",
    ]
    [injected] = schedule.done
    down_at, up_at = dut.done[1][0], dut.done[2][0]
    # Each time is the command's (between its start and its answer), not the plan's.
    assert injected.start == pytest.approx(down_at, abs=0.005)
    assert injected.end == pytest.approx(up_at, abs=0.005)
    assert origin + 0.05 <= injected.start < origin + 0.9  # at its time, not later
    assert 0.1 <= injected.duration < 1.0
    assert not schedule.errors


def test_a_forwarding_fault_drops_in_a_chain_of_its_own_and_removes_its_table() -> None:
    dut = _Dut()
    schedule = _schedule(dut, Fault(at=0.0, down=0.05, kind="forwarding"))
    schedule.start()
    _until(lambda: len(schedule.done) == 1)
    schedule.stop()
    texts = [text for _, text in dut.done]
    assert texts[0] == (
        "kmsg <4>wirespeed-lab[f]: NETDEV WATCHDOG: wan (igb): transmit queue 0 timed out\n"
    )
    assert texts[1] == (
        f"nft add table ip {NFT_TABLE} ; add chain ip {NFT_TABLE} stop "
        "{ type filter hook forward priority -300 ; policy drop ; }"
    )
    assert texts[2:] == [
        f"nft delete table ip {NFT_TABLE}",
        "kmsg <4>wirespeed-lab[f]: igb 0000:01:00.0 wan: Reset adapter\n",
    ]


def test_a_soak_that_ends_mid_fault_ends_it_and_keeps_the_time_it_lasted() -> None:
    dut = _Dut()
    schedule = _schedule(
        dut, Fault(at=0.0, down=60.0, kind="link"), Fault(at=120.0, down=1.0, kind="link")
    )
    schedule.start()
    _until(lambda: any(text.endswith("down") for _, text in dut.done))
    time.sleep(0.1)
    stopped_at = time.time()
    schedule.stop()
    # Undone now, not 60 s on: the port is up again and the driver's line written.
    assert [text for _, text in dut.done][-2:] == [
        "ip link set dev wan up",
        "kmsg <4>wirespeed-lab[f]: igb 0000:01:00.0 wan: igb: wan NIC Link is Up 1000 Mbps "
        "Full Duplex\n",
    ]
    [injected] = schedule.done  # the second fault never began
    assert injected.fault == Fault(at=0.0, down=60.0, kind="link")
    assert injected.end == pytest.approx(stopped_at, abs=1.0)
    assert 0.1 <= injected.duration < 5.0
    assert injected.to_dict() == {
        "kind": "link",
        "at": 0.0,
        "down": 60.0,
        "start": round(injected.start, 4),
        "end": round(injected.end, 4),
    }
    # Stopped again (the soak's finally after its last chunk): nothing more is done.
    count = len(dut.done)
    schedule.stop()
    assert len(dut.done) == count and len(schedule.done) == 1


def test_a_fault_that_cannot_be_applied_is_said_and_the_next_still_runs() -> None:
    dut = _Dut(refuse="ip link set dev wan down")
    schedule = _schedule(
        dut, Fault(at=0.0, down=0.05, kind="link"), Fault(at=0.05, down=0.05, kind="forwarding")
    )
    schedule.start()
    _until(lambda: len(schedule.done) == 1)
    schedule.stop()
    assert schedule.errors == ["link fault at 0 s: ip link set dev wan down: Cannot find device"]
    assert [i.fault.kind for i in schedule.done] == ["forwarding"]


@pytest.mark.parametrize("kind", DEVICE_FAULT_KINDS)
def test_a_device_fault_needs_the_lab_dut_reached_over_ssh(kind: str) -> None:
    dut = _Dut()
    schedule = _schedule(dut, Fault(at=0.0, down=0.05, kind=kind))
    schedule.start()
    _until(lambda: bool(schedule.errors))
    schedule.stop()
    assert schedule.errors == [
        f"{kind} fault at 0 s: a {kind} fault needs the lab DUT reached over SSH"
    ]
    assert dut.done == [] and schedule.done == []


def test_faults_run_in_the_order_of_their_times_and_none_without_faults() -> None:
    dut = _Dut()
    schedule = _schedule(
        dut, Fault(at=0.08, down=0.02, kind="forwarding"), Fault(at=0.0, down=0.02)
    )
    schedule.start()
    _until(lambda: len(schedule.done) == 2)
    schedule.stop()
    assert [i.fault.kind for i in schedule.done] == ["link", "forwarding"]
    assert schedule.done[0].end <= schedule.done[1].start
    idle = _schedule(dut)
    idle.start()
    idle.stop()
    assert idle.done == [] and not idle._thread.is_alive()


def test_a_fault_is_checked_when_written() -> None:
    assert FAULT_KINDS == ("link", "forwarding", "freeze", "restart")
    assert Fault(at=0.0, down=0.001).kind == "link"
    with pytest.raises(ValueError, match=r"^a fault's kind is one of link, forwarding, freeze"):
        Fault(at=1.0, down=1.0, kind="reboot")
    for at, down in ((-0.001, 1.0), (1.0, 0.0), (1.0, -1.0)):
        with pytest.raises(ValueError, match=r"^a fault needs at >= 0 and down > 0$"):
            Fault(at=at, down=down)
    assert Injected(Fault(0.0, 1.0), 10.0, 12.5).duration == 2.5


class _Device(FaultSchedule):
    """A schedule whose signals to the DUT namespace's processes are recorded (sent to
    real processes only by the root tests, tests/integration/soak/test_soak_device.py)."""

    def _signal_all(self, sig: signal.Signals, name: str | None = None) -> None:
        assert isinstance(self.dut, _Dut)
        self.dut.done.append((time.time(), f"{sig.name} {name or 'every process'}"))


def _device_schedule(
    dut: _Dut, fault: Fault, restarted: list[tuple[object, str]], monkeypatch: pytest.MonkeyPatch
) -> FaultSchedule:
    monkeypatch.setattr(
        "wirespeed.lab.ssh_dut.restart_server",
        lambda device, namespace: restarted.append((device, namespace)),
    )
    device = SimpleNamespace(lab="f")
    return _Device(
        dut,  # type: ignore[arg-type]
        [fault],
        time.time(),
        lab="f",
        interface="lan",
        device=device,  # type: ignore[arg-type]
        dut_namespace="wirespeed-f-dut",
    )


def test_a_freeze_stops_the_ssh_server_and_the_port_and_thaws_both(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    dut, restarted = _Dut(), list[tuple[object, str]]()
    schedule = _device_schedule(dut, Fault(0.0, 0.05, "freeze"), restarted, monkeypatch)
    schedule.start()
    _until(lambda: len(schedule.done) == 1)
    schedule.stop()
    assert [text for _, text in dut.done] == [
        "SIGSTOP dropbear",
        "ip link set dev lan down",
        "ip link set dev lan up",
        "SIGCONT dropbear",
    ]
    assert restarted == [] and not schedule.errors
    [injected] = schedule.done
    assert injected.start == pytest.approx(dut.done[1][0], abs=0.005)
    assert injected.end == pytest.approx(dut.done[2][0], abs=0.005)


def test_a_restart_kills_every_process_and_starts_the_ssh_server_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    dut, restarted = _Dut(), list[tuple[object, str]]()
    schedule = _device_schedule(dut, Fault(0.0, 0.05, "restart"), restarted, monkeypatch)
    schedule.start()
    _until(lambda: len(schedule.done) == 1)
    schedule.stop()
    assert [text for _, text in dut.done] == [
        "SIGKILL every process",
        "ip link set dev lan down",
        "ip link set dev lan up",
    ]
    assert restarted == [(schedule.device, "wirespeed-f-dut")]
    [injected] = schedule.done
    assert injected.end == pytest.approx(dut.done[2][0], abs=0.005)
    assert not schedule.errors


@pytest.mark.parametrize("given", ["device", "namespace"])
def test_a_device_fault_needs_both_the_device_and_its_namespace(given: str) -> None:
    dut = _Dut()
    schedule = FaultSchedule(
        dut,  # type: ignore[arg-type]
        [Fault(0.0, 0.05, "freeze")],
        time.time(),
        lab="f",
        device=SimpleNamespace() if given == "device" else None,  # type: ignore[arg-type]
        dut_namespace="wirespeed-f-dut" if given == "namespace" else None,
    )
    schedule.start()
    _until(lambda: bool(schedule.errors))
    schedule.stop()
    assert schedule.errors == [
        "freeze fault at 0 s: a freeze fault needs the lab DUT reached over SSH"
    ]


def test_the_schedules_thread_is_named_and_never_holds_the_program_up() -> None:
    schedule = _schedule(_Dut(), Fault(0.0, 1.0))
    assert schedule._thread.name == "soak-faults" and schedule._thread.daemon


def _state(pid: int) -> str:
    """The process's state letter (R, S, T stopped, Z ended)."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]


@pytest.mark.process
def test_the_signals_reach_the_namespaces_processes_of_that_name_only() -> None:
    # Two processes stand for the DUT namespace's (`ip netns pids` lists them): a sleep,
    # and a tail that a signal to the processes named sleep must not reach.
    sleeper = subprocess.Popen(["sleep", "30"])
    other = subprocess.Popen(["tail", "-f", "/dev/null"])
    # The other first, and one that ended meanwhile: each passed over, the next still seen.
    listed = f"{other.pid}\n99999999\n{sleeper.pid}\n"

    class Listed(FaultSchedule):
        def _local(self, argv: list[str]) -> str:
            assert argv == ["ip", "netns", "pids", "wirespeed-f-dut"]
            return listed

    schedule = Listed(
        _Dut(),  # type: ignore[arg-type]
        [],
        time.time(),
        lab="f",
        dut_namespace="wirespeed-f-dut",
    )
    try:
        schedule._signal_all(signal.SIGSTOP, "sleep")
        _until(lambda: _state(sleeper.pid) == "T")
        assert _state(other.pid) != "T"
        schedule._signal_all(signal.SIGCONT, "sleep")
        _until(lambda: _state(sleeper.pid) != "T")
        schedule._signal_all(signal.SIGKILL)  # every process, as the power goes
        assert sleeper.wait(10) == -signal.SIGKILL and other.wait(10) == -signal.SIGKILL
    finally:
        for process in (sleeper, other):
            process.kill()
            process.wait()


@pytest.mark.process
def test_a_namespace_that_is_gone_is_said_with_ips_words() -> None:
    schedule = _schedule(_Dut())
    with pytest.raises(RuntimeError) as raised:
        schedule._local(["ip", "netns", "pids", "wirespeed-no-such-namespace"])
    assert str(raised.value) == (
        "ip netns pids wirespeed-no-such-namespace: "
        "Cannot open network namespace: No such file or directory"
    )
    assert schedule._local(["true"]) == ""
