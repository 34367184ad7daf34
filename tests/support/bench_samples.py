"""Benchmark trials as a run stores them: openssl speed on a device path, its figures
given per repetition. The figures of seed 002's table (NanoPi R4S on FriendlyCore 4.19,
on Armbian 5.10, and a NanoPi Neo2) are the defaults, so that a comparison reads as the
seed's does."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from wirespeed.model import (
    BenchSpec,
    Better,
    Measurement,
    PathSpec,
    RawOutput,
    Result,
    Side,
    TestCase,
    TestSpec,
    Tool,
    Topology,
    Trial,
    TrialOutcome,
    TrialStatus,
)

AES = TestCase(
    id="aes",
    name="openssl speed",
    tool=Tool.OPENSSL,
    spec=TestSpec(),
    bench=BenchSpec(options=(("ciphers", ("aes-128-cbc",)), ("blocks", (1024,)), ("evp", "both"))),
)
ITEMS = (
    ("AES-128-CBC", (("block", "1 KB"), ("api", "no EVP"))),
    ("AES-128-CBC", (("block", "1 KB"), ("api", "EVP"))),
)
# Seed 002, in bytes/s (openssl's "k" is 1000): w/o EVP and with EVP at 1 KB.
R4S_419 = (92_054_870.0, 1_282_523_140.0)
R4S_510 = (92_261_030.0, 1_282_453_500.0)
NEO2 = (25_189_720.0, 547_143_680.0)


def device_path(name: str, dut: str | None = None) -> PathSpec:
    host = dut or name.lower()
    return PathSpec(name=name, topology=Topology.DEVICE, client=host, server=host, dut=host)


def bench_outcome(
    path: PathSpec,
    values: Sequence[float],
    *,
    repetition: int = 1,
    test: TestCase = AES,
    started_at: float = 1_614_556_800.0,
) -> TrialOutcome:
    """One passed openssl trial whose ITEMS measured `values`."""
    measurements = tuple(
        Measurement(name, "B/s", Better.HIGHER, value, labels)
        for (name, labels), value in zip(ITEMS, values, strict=True)
    )
    result = Result(
        tool=test.tool,
        protocol=None,
        directions=(),
        tool_version="1.1.1k",
        measurements=measurements,
    )
    raw = RawOutput(
        host=path.dut or path.name,
        side=Side.DEVICE,
        argv=("openssl", "speed", "-elapsed", "-bytes", "1024", "aes-128-cbc"),
        format="text",
        text="(the output)",
        exit_status=0,
    )
    return TrialOutcome(
        trial=Trial(test, path, repetition=repetition),
        status=TrialStatus.OK,
        started_at=started_at + repetition,
        finished_at=started_at + repetition + 0.5,
        result=result,
        raw=(raw,),
    )


def failed_bench(path: PathSpec, repetition: int = 1) -> TrialOutcome:
    return TrialOutcome(
        trial=Trial(AES, path, repetition=repetition),
        status=TrialStatus.FAILED,
        started_at=1_614_556_800.0,
        finished_at=1_614_556_801.0,
        reason="openssl exited with status 1: speed: Unknown algorithm aes-999-cbc",
    )


def repeated(path: PathSpec, base: Sequence[float], spread: Sequence[float]) -> list[TrialOutcome]:
    """One outcome per factor in `spread`, each figure of `base` times it."""
    return [
        bench_outcome(path, [v * factor for v in base], repetition=k)
        for k, factor in enumerate(spread, start=1)
    ]


def provenance(host: str, kernel: str) -> Mapping[str, object]:
    return {"hosts": {host: {"kernel": kernel, "role": "dut"}}}
