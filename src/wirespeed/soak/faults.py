"""Outages of known start and length, injected into a lab DUT: the truth a soak's
outage detection is checked against.

Two kinds, as a router loses a path:
- link: the DUT's port (`wan` by default) goes down and comes back (`ip link set`), as
  a NIC that resets; its neighbours are forgotten and learnt again;
- forwarding: the DUT keeps its links but forwards nothing (an nftables chain in the
  forward hook whose policy is drop, ahead of every other), as a hung Tx queue.
And two of the whole device, for a lab DUT reached over SSH (`dut_access: ssh`):
- freeze: its SSH server's every process is stopped (SIGSTOP) and its port goes down, as a device
  whose system froze; both come back at the end (SIGCONT);
- restart: every process of the DUT is killed and its port goes down; at the end the
  port comes back and the SSH server starts again, showing a new boot id (a namespace
  cannot restart: lab/ssh_dut.py restart_server).

At each start the DUT's kernel log gets a line that mimics the igb driver of a router
that did this (`igb 0000:01:00.0: Detected Tx Unit Hang`, `NETDEV WATCHDOG`), and at
each end one as the driver writes once it recovered (`NIC Link is Up`, `Reset
adapter`); every one starts with `wirespeed-lab[LAB]:`, so that nobody takes it for
the kernel's own. The times kept are this machine's wall clock around each command
(their midpoint: a command takes milliseconds).

FaultSchedule runs the faults from a thread at their times; stop() ends one in
progress and undoes everything, also after Ctrl-C or an error. A process killed with
SIGKILL cannot: the lab is rebuilt (Lab.up removes the stale one) when the soak resumes,
and `wirespeed lab down` removes it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from wirespeed.hosts.base import Host
from wirespeed.lab import ssh_dut
from wirespeed.sampling.events import INJECTED_PREFIX

__all__ = ["DEVICE_FAULT_KINDS", "FAULT_KINDS", "Fault", "FaultSchedule", "Injected"]

FAULT_KINDS = ("link", "forwarding", "freeze", "restart")
DEVICE_FAULT_KINDS = ("freeze", "restart")
NFT_TABLE = "wirespeed_soak_fault"
PCI_ADDRESS = "0000:01:00.0"  # the seed's igb port; made up, as the driver is


@dataclass(frozen=True)
class Fault:
    at: float  # seconds after the soak started
    down: float  # seconds
    kind: str = "link"

    def __post_init__(self) -> None:
        if self.kind not in FAULT_KINDS:
            raise ValueError(f"a fault's kind is one of {', '.join(FAULT_KINDS)}")
        if self.at < 0 or self.down <= 0:
            raise ValueError("a fault needs at >= 0 and down > 0")


@dataclass(frozen=True)
class Injected:
    """A fault as it happened: wall clock seconds."""

    fault: Fault
    start: float
    end: float

    @property
    def duration(self) -> float:
        return self.end - self.start

    def to_dict(self) -> dict[str, object]:
        return {
            "kind": self.fault.kind,
            "at": self.fault.at,
            "down": self.fault.down,
            "start": round(self.start, 4),
            "end": round(self.end, 4),
        }


class FaultSchedule:
    """Runs `faults` on the DUT `dut` (a host in the lab DUT's namespace), `origin` being
    the wall-clock time their `at` counts from."""

    def __init__(
        self,
        dut: Host,
        faults: Sequence[Fault],
        origin: float,
        *,
        lab: str,
        interface: str = "wan",
        family: str = "ip",
        device: ssh_dut.SshDevice | None = None,
        dut_namespace: str | None = None,
    ) -> None:
        self.dut = dut
        self.device = device  # the lab's SSH DUT, for the device's own faults
        self.dut_namespace = dut_namespace
        self.faults = sorted(faults, key=lambda fault: fault.at)
        self.origin = origin
        self.lab = lab
        self.interface = interface
        self.family = family
        self.done: list[Injected] = []
        self.errors: list[str] = []
        self._stop = threading.Event()
        self._active: Fault | None = None
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="soak-faults", daemon=True)

    def start(self) -> None:
        if self.faults:
            self._thread.start()

    def stop(self) -> None:
        """End the fault in progress (if any) and stop the schedule; idempotent."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=10)
        with self._lock:
            if self._active is not None:
                self._undo(self._active)
                self._active = None

    def _run(self) -> None:
        for fault in self.faults:
            if self._stop.wait(max(0.0, self.origin + fault.at - time.time())):
                return
            with self._lock:
                try:
                    start = self._apply(fault)
                except Exception as error:
                    self.errors.append(f"{fault.kind} fault at {fault.at:g} s: {error}")
                    continue
                self._active = fault
            stopped = self._stop.wait(max(0.0, start + fault.down - time.time()))
            with self._lock:
                if self._active is None:
                    return
                end = self._undo(fault)
                self._active = None
            self.done.append(Injected(fault, start, end))
            if stopped:
                return

    def _kmsg(self, text: str) -> None:
        # Level 4 (warning), as the driver writes these; /dev/kmsg is the host's log, the
        # one the DUT's sampler reads (a namespace has no log of its own).
        self.dut.write_file("/dev/kmsg", f"<4>{INJECTED_PREFIX}{self.lab}]: {text}\n")

    def _timed(self, argv: list[str]) -> float:
        before = time.time()
        result = self.dut.run(argv, timeout=10)
        after = time.time()
        if result.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)}: {result.stderr.strip()}")
        return (before + after) / 2

    def _ssh_device(self, fault: Fault) -> ssh_dut.SshDevice:
        if self.device is None or self.dut_namespace is None:
            raise RuntimeError(f"a {fault.kind} fault needs the lab DUT reached over SSH")
        return self.device

    def _signal_all(self, sig: signal.Signals, name: str | None = None) -> None:
        """Every process of the DUT namespace (named `name`, if given): SIGKILL as a
        device's power goes; SIGSTOP to dropbear's every process (the one that listens
        and those that carry the sessions) as a system that froze."""
        assert self.dut_namespace is not None
        listed = self._local(["ip", "netns", "pids", self.dut_namespace])
        for pid in listed.split():
            with contextlib.suppress(OSError):
                if name is not None and Path(f"/proc/{pid}/comm").read_text().strip() != name:
                    continue
                os.kill(int(pid), sig)

    def _local(self, argv: list[str]) -> str:
        result = subprocess.run(argv, capture_output=True, text=True, timeout=10, check=False)
        if result.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)}: {result.stderr.strip()}")
        return result.stdout

    def _apply(self, fault: Fault) -> float:
        port = self.interface
        if fault.kind == "freeze":
            self._ssh_device(fault)
            self._signal_all(signal.SIGSTOP, "dropbear")
            return self._timed(["ip", "link", "set", "dev", port, "down"])
        if fault.kind == "restart":
            self._ssh_device(fault)
            self._signal_all(signal.SIGKILL)
            return self._timed(["ip", "link", "set", "dev", port, "down"])
        if fault.kind == "link":
            self._kmsg(f"igb {PCI_ADDRESS} {port}: Detected Tx Unit Hang")
            return self._timed(["ip", "link", "set", "dev", port, "down"])
        self._kmsg(f"NETDEV WATCHDOG: {port} (igb): transmit queue 0 timed out")
        chain = "{ type filter hook forward priority -300 ; policy drop ; }"
        return self._timed(
            ["nft", f"add table {self.family} {NFT_TABLE} ; "
             f"add chain {self.family} {NFT_TABLE} stop {chain}"]
        )  # fmt: skip

    def _undo(self, fault: Fault) -> float:
        port = self.interface
        if fault.kind == "freeze":
            end = self._timed(["ip", "link", "set", "dev", port, "up"])
            self._signal_all(signal.SIGCONT, "dropbear")
            return end
        if fault.kind == "restart":
            end = self._timed(["ip", "link", "set", "dev", port, "up"])
            assert self.device is not None and self.dut_namespace is not None
            ssh_dut.restart_server(self.device, self.dut_namespace)
            return end
        if fault.kind == "link":
            end = self._timed(["ip", "link", "set", "dev", port, "up"])
            self._kmsg(
                f"igb {PCI_ADDRESS} {port}: igb: {port} NIC Link is Up 1000 Mbps Full Duplex"
            )
            return end
        end = self._timed(["nft", f"delete table {self.family} {NFT_TABLE}"])
        self._kmsg(f"igb {PCI_ADDRESS} {port}: Reset adapter")
        return end
