"""An external power meter's command, run on this machine every interval during a
trial and its idle baseline (the plan's `power: meter:`).

The command is the user's own, split as a shell splits words but run without a shell
(write `sh -c '...'` for a pipe). One that fails, hangs past its interval or prints no
reading costs that reading and leaves a warning; it never ends the trial.
"""

from __future__ import annotations

import shlex
import subprocess
import threading
import time
from collections.abc import Sequence

from wirespeed.model import RawOutput, Side
from wirespeed.sampling.meter import (
    METER_FORMAT,
    METER_HOST,
    METER_LOG_VERSION,
    format_reading,
    parse_meter,
)

# Beyond the interval, how long one run of the command may take (a Bluetooth USB meter
# can take a second to answer).
MIN_TIMEOUT = 2.0


class MeterRecorder:
    """Runs the meter's command every interval in a thread, from start() to stop()."""

    def __init__(self, argv: Sequence[str], interval: float) -> None:
        self.argv = tuple(argv)
        self.interval = interval
        self._lines: list[str] = [f"@@meter {METER_LOG_VERSION}\n"]
        self._warnings: dict[str, None] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._origin = 0.0
        self._lock = threading.Lock()
        self.readings = 0

    def start(self) -> None:
        self._origin = time.monotonic()
        self._thread = threading.Thread(target=self._loop, name="power-meter", daemon=True)
        self._thread.start()

    def wait_for_readings(self, count: int, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while self.readings < count and time.monotonic() < deadline:
            time.sleep(0.02)
        return self.readings >= count

    def mark(self, what: str) -> None:
        """A moment of the trial: "load" when traffic starts, "end" when it ends."""
        with self._lock:
            self._lines.append(f"@@{what} {time.monotonic() - self._origin:.3f}\n")

    def stop(self) -> RawOutput:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        with self._lock:
            text = "".join(self._lines)
        return RawOutput(
            host=METER_HOST,
            side=Side.DEVICE,
            argv=self.argv,
            format=METER_FORMAT,
            text=text,
            stderr="".join(f"{warning}\n" for warning in self._warnings),
            exit_status=0 if not self._warnings else 1,
        )

    @property
    def warnings(self) -> tuple[str, ...]:
        return tuple(self._warnings)

    def _loop(self) -> None:
        next_at = time.monotonic()
        while not self._stop.is_set():
            t = time.monotonic() - self._origin
            output, watts = self._read_once()
            with self._lock:
                self._lines.append(format_reading(t, watts, output))
            self.readings += 1
            next_at += self.interval
            self._stop.wait(max(next_at - time.monotonic(), 0.0))

    def _read_once(self) -> tuple[str, float | None]:
        command = shlex.join(self.argv)
        try:
            done = subprocess.run(
                self.argv,
                capture_output=True,
                text=True,
                timeout=max(self.interval, MIN_TIMEOUT),
                check=False,
            )
        except FileNotFoundError:
            self._warn(f"the power meter command {command!r} was not found")
            return "", None
        except (subprocess.TimeoutExpired, OSError) as error:
            self._warn(f"the power meter command {command!r} failed: {error}")
            return "", None
        output = done.stdout.strip()
        if done.returncode != 0:
            said = (done.stderr.strip().splitlines() or [""])[-1]
            self._warn(
                f"the power meter command {command!r} exited with status {done.returncode}"
                + (f": {said}" if said else "")
            )
            return output, None
        watts = parse_meter(output)
        if watts is None:
            first = (output.splitlines() or [""])[0][:80]
            self._warn(
                f"the power meter command {command!r} printed no reading ({first!r}): "
                "it should print watts (4.2 W) or amperes and volts (1.02 A 5.1 V)"
            )
        return output, watts

    def _warn(self, message: str) -> None:
        self._warnings.setdefault(message)
