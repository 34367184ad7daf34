"""Named link models: what people call their links, as line rates."""

from __future__ import annotations

from wirespeed.model import LinkModel
from wirespeed.units import parse_rate

NAMED_RATES: dict[str, int | None] = {
    "fe": 100_000_000,  # Fast Ethernet, 100BASE-TX
    "gbe": 1_000_000_000,  # 1000BASE-T
    "2.5gbe": 2_500_000_000,
    "5gbe": 5_000_000_000,
    "10gbe": 10_000_000_000,
    "unshaped": None,  # veth as fast as the CPU moves packets
}


def parse_link(name: str, mtu: int = 1500, queue: float | None = None) -> LinkModel:
    """'gbe', 'fe', '10gbe', 'unshaped', or any rate ('300mbit', '2.5G') -> LinkModel;
    queue: seconds of data its bottleneck holds (lab/shaping.py)."""
    key = name.strip().lower()
    if key in NAMED_RATES:
        return LinkModel(name=key, rate_bps=NAMED_RATES[key], mtu=mtu, queue=queue)
    try:
        rate = parse_rate(key)
    except ValueError:
        known = ", ".join(NAMED_RATES)
        raise ValueError(
            f"unknown link {name!r}: use one of {known}, or a rate such as 300mbit or 2.5G"
        ) from None
    return LinkModel(name=key, rate_bps=rate, mtu=mtu, queue=queue)
