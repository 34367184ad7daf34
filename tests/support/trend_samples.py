"""Runs of one device over firmware versions, for the trend's tests: seed 002's openssl
figures on the R4S, scaled by a level (the firmware's speed) and per repetition by a
spread (the noise), each run an hour after the one before."""

from __future__ import annotations

from collections.abc import Sequence

from support.bench_samples import R4S_419, device_path, repeated
from support.samples import START, run_record
from wirespeed.store.records import RunRecord

R4S = device_path("R4S")
# Five repetitions at about 1 % CV: openssl's spread on a quiet board.
NOISE = (1.0, 1.012, 0.991, 1.006, 0.995)


def labelled(
    run_id: int, firmware: str | None, level: float, spread: Sequence[float] = NOISE
) -> RunRecord:
    """Run run_id of the R4S on OpenWrt, labelled firmware=`firmware` (None: no label)."""
    dut = {"kernel": "Linux 5.15.150 aarch64", "os": "OpenWrt 23.05.3", "role": "dut"}
    provenance: dict[str, object] = {"hosts": {"r4s": dut}}
    if firmware is not None:
        provenance["labels"] = {"firmware": firmware}
    return run_record(
        *repeated(R4S, R4S_419, [level * f for f in spread]),
        run_id=run_id,
        started_at=START + 3600 * run_id,
        provenance=provenance,
    )
