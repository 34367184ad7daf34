"""Application budgets: a measured goodput said as what an application needs of it.

`--as` on `report` and `compare`. The formulas (docs/budgets.md):

  sdr:sc16   Msps = goodput_bps / 8 / 4 / 10^6   (16-bit I and Q: 4 bytes a complex sample)
  sdr:cs8    Msps = goodput_bps / 8 / 2 / 10^6   (8-bit I and Q: 2 bytes)
  video:6M   streams = floor(goodput_bps * (1 - headroom) / 6 * 10^6)
             ('video:6M,headroom=20%': a fifth kept free for bursts; default 0 %)
  MB/s       goodput_bps / 8 / 10^6
  MiB/s      goodput_bps / 8 / 2^20

Goodput is what the receiver got, so the figures are what an application could move,
not what the wire carried.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from wirespeed.errors import UsageError
from wirespeed.units import parse_rate

SDR_BYTES_PER_SAMPLE = {"sc16": 4, "cs16": 4, "cs8": 2, "sc8": 2}
KNOWN = "sdr:sc16, sdr:cs8, video:RATE[,headroom=N%], MB/s or MiB/s"
_HEADROOM = re.compile(r"^headroom=(?P<pct>\d+(?:\.\d+)?)%?$")


@dataclass(frozen=True)
class Budget:
    """One way of saying a goodput: `name` as given, `unit` after the figure."""

    name: str  # "sdr:sc16", as the user wrote it
    unit: str  # "Msps sc16", "video streams of 6 Mbit/s", "MB/s"
    bytes_per_unit: float | None = None  # a rate: bytes/s per one of the unit
    stream_bps: int | None = None  # a count of streams of this rate
    headroom: float = 0.0  # a share of the goodput kept free (streams only)

    def value(self, goodput_bps: float) -> float:
        """The goodput in this budget's unit: a rate, or a whole number of streams."""
        if self.stream_bps is not None:
            return float(math.floor(goodput_bps * (1 - self.headroom) / self.stream_bps))
        assert self.bytes_per_unit is not None
        return goodput_bps / 8 / self.bytes_per_unit

    def text(self, goodput_bps: float) -> str:
        """'29.4 Msps sc16', '156 streams of 6 Mbit/s', '117.6 MB/s'."""
        value = self.value(goodput_bps)
        if self.stream_bps is not None:
            return f"{value:.0f} {self.unit}"
        digits = 1 if value >= 10 else 2
        return f"{value:.{digits}f} {self.unit}"


def parse_budget(text: str) -> Budget:
    """A budget as `--as` takes it; a UsageError (exit 2) naming the known ones else."""
    spec = text.strip()
    kind, _, rest = spec.partition(":")
    if spec in ("MB/s", "MiB/s"):
        return Budget(spec, spec, bytes_per_unit=1e6 if spec == "MB/s" else 2**20)
    if kind == "sdr" and rest in SDR_BYTES_PER_SAMPLE:
        per_sample = SDR_BYTES_PER_SAMPLE[rest]
        return Budget(spec, f"Msps {rest}", bytes_per_unit=per_sample * 1e6)
    if kind == "video" and rest:
        rate_text, *options = rest.split(",")
        try:
            rate = parse_rate(rate_text)
        except ValueError as error:
            raise UsageError(f"--as {text}: {error}", hint=f"known budgets: {KNOWN}") from None
        headroom = 0.0
        for option in options:
            match = _HEADROOM.match(option.strip())
            if match is None or float(match["pct"]) >= 100:
                raise UsageError(
                    f"--as {text}: unknown option {option!r}",
                    hint="the one option is headroom=N% (0 to 99), e.g. video:6M,headroom=20%",
                )
            headroom = float(match["pct"]) / 100
        unit = f"streams of {_rate_words(rate)}"
        if headroom:
            unit += f" ({headroom * 100:g} % headroom)"
        return Budget(spec, unit, stream_bps=rate, headroom=headroom)
    raise UsageError(f"--as {text}: not a budget", hint=f"known budgets: {KNOWN}")


def parse_budgets(texts: list[str] | None) -> tuple[Budget, ...]:
    return tuple(parse_budget(text) for text in texts or ())


def _rate_words(bits_per_second: int) -> str:
    for unit, scale in (("Gbit/s", 10**9), ("Mbit/s", 10**6), ("kbit/s", 10**3)):
        if bits_per_second >= scale:
            return f"{bits_per_second / scale:g} {unit}"
    return f"{bits_per_second} bit/s"


def budgets_text(budgets: tuple[Budget, ...], goodput_bps: float | None) -> str:
    """'= 29.4 Msps sc16, 156 streams of 6 Mbit/s' beside a figure; '' without one."""
    if goodput_bps is None or not budgets:
        return ""
    return "= " + ", ".join(budget.text(goodput_bps) for budget in budgets)
