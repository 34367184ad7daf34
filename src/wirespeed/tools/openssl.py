"""`openssl speed`: the benchmark driver (tools/bench.py) of cipher and digest throughput.

What runs: `openssl speed -elapsed` (wall clock, as the seeds: with CPU user time a
cipher offloaded to the kernel reads as infinitely fast), one block size per invocation
(`-bytes`), several ciphers in one invocation without EVP, one per invocation with `-evp`
(it takes one name). On big.LITTLE each run is pinned to one CPU cluster with taskset, so
that each core type is measured apart (sbc-bench pins to a cluster's first CPU; the whole
cluster lets -multi use all of its cores).

What is read: openssl's final table, which is what users paste and what every version
prints alike (OpenSSL 1.0.x to 3.x, LibreSSL):

    The 'numbers' are in 1000s of bytes per second processed.
    type           1024 bytes
    aes-128-cbc    1171359.74k

'k' is 1000 bytes/s, not 1024. A figure of at most 10000 bytes/s is printed in bytes/s,
without the 'k'. With -multi the parent prints the table without its header (the block
sizes are in the children's "Got: +H:1024 from 0" lines); with -mr the rows are
"+F:19:aes-128-cbc:1164778496.00" in bytes/s. Both are read too.

Versions: -bytes and -seconds exist from OpenSSL 1.1.1 on. Older ones (and LibreSSL, and
a version not known) measure their own block sizes, 16 B to 8 KB (1.0.x) or 16 KB (1.1.0),
3 s each; `parse(text, blocks=...)` then keeps the requested ones.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Mapping, Sequence
from decimal import Decimal
from typing import Annotated, Literal, TypeVar

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field

from wirespeed.model import Better, Measurement, Tool
from wirespeed.tools.bench import BenchParseError, Command, HostCpus

__all__ = [
    "DEFAULT_SECONDS",
    "PACKAGES",
    "PROGRAMS",
    "TOOL",
    "WORKLOAD",
    "Options",
    "block_label",
    "commands",
    "cpu_list",
    "measurement_name",
    "notices",
    "own_block_sizes",
    "parse",
    "parse_version",
    "pinning_note",
    "supports_bytes_and_seconds",
    "version_argv",
    "version_note",
]

TOOL: Tool = Tool.OPENSSL
PROGRAMS: tuple[str, ...] = ("openssl",)
PACKAGES: Mapping[str, str] = {"Debian": "openssl", "OpenWrt": "openssl-util"}
# The programs whose CPU is the benchmark's own, never background load.
WORKLOAD: tuple[str, ...] = ("openssl",)

DEFAULT_SECONDS = 3  # openssl's own time per cipher and block size (SECONDS in speed.c)
# The block sizes an openssl without -bytes measures: 1.0.x stops at 8192, 1.1.0 at 16384.
_OWN_SIZES = (16, 64, 256, 1024, 8192, 16384)
MIN_BLOCK = 16
MAX_BLOCK = 16 * 2**20
MAX_SECONDS = 3600
MAX_PROCESSES = 1024
# A command may take its measurements' time twice over, plus this for starting openssl,
# forking -multi children and setting up keys on a slow board, before it counts as hung.
_STARTUP_SECONDS = 30.0

# Public-key algorithms: openssl prints sign/verify per second for them, not the block
# size table this driver reads.
_PUBLIC_KEY = ("rsa", "dsa", "ecdsa", "ecdh", "eddsa", "ed25519", "ed448", "sm2", "ffdh")
_CIPHER = re.compile(r"[a-z0-9][a-z0-9-]*")
_BLOCK = re.compile(r"(?P<number>[0-9]+)\s*(?P<unit>|b|k|kb|kib|m|mb|mib)", re.IGNORECASE)
_BLOCK_UNITS = {"": 1, "b": 1, "k": 2**10, "kb": 2**10, "kib": 2**10}
_BLOCK_UNITS |= {"m": 2**20, "mb": 2**20, "mib": 2**20}
_T = TypeVar("_T")


def _cipher(value: str) -> str:
    name = value.strip().lower()
    if not _CIPHER.fullmatch(name):
        raise ValueError(
            f"{value!r} is not a cipher or digest name: use lowercase letters, digits and -, "
            "as openssl names them (aes-128-cbc, chacha20-poly1305, sha256)"
        )
    if name.startswith(_PUBLIC_KEY):
        raise ValueError(
            f"{name} is a public-key algorithm: openssl speed measures it in signatures "
            "per second, not the bytes per second this test reads; name a cipher or digest"
        )
    return name


def _block(value: object) -> int:
    """1024, "1K", "1KB", "8 KiB" -> bytes (binary: openssl's sizes are 16, 1024, 8192...)."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ValueError(f"expected a block size such as 1024 or 8K, got {value!r}")
    if isinstance(value, str):
        match = _BLOCK.fullmatch(value.strip())
        if match is None:
            raise ValueError(f"{value!r} is not a block size: write e.g. 16, 1024, 1K or 8KB")
        size = int(match["number"]) * _BLOCK_UNITS[match["unit"].lower()]
    else:
        size = value
    if not MIN_BLOCK <= size <= MAX_BLOCK:
        raise ValueError(f"block size {value!r} is outside 16 bytes .. 16 MiB")
    return size


def _unique(values: list[_T]) -> list[_T]:
    twice = [v for i, v in enumerate(values) if v in values[:i]]
    if twice:
        raise ValueError(f"{twice[0]} is listed twice")
    return values


def _whole_seconds(value: float | None) -> float | None:
    # speed.c reads -seconds as a positive integer: "-seconds 1.5" is refused.
    if value is not None and not (math.isfinite(value) and value == int(value)):
        raise ValueError(f"seconds must be a whole number (openssl's -seconds), got {value}")
    if value is not None and not 1 <= value <= MAX_SECONDS:
        raise ValueError(f"seconds must be 1 .. {MAX_SECONDS}, got {value:g}")
    return value


Cipher = Annotated[str, AfterValidator(_cipher)]
BlockSize = Annotated[int, BeforeValidator(_block)]


class Options(BaseModel):
    """The plan's `options:` of an openssl test. Defaults are seed 002's measurements."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    ciphers: Annotated[list[Cipher], AfterValidator(_unique)] = Field(
        default_factory=lambda: ["aes-128-cbc", "aes-256-cbc"], min_length=1
    )
    # Bytes per call; after validation plain integers ("1K" -> 1024).
    blocks: Annotated[list[BlockSize], AfterValidator(_unique)] = Field(
        default_factory=lambda: [1024, 8192], min_length=1
    )
    # Without EVP openssl knows a fixed list (aes-*-cbc, des, sha256 ...); AEAD ciphers
    # such as aes-128-gcm exist only with EVP.
    evp: Literal["both", "with", "without"] = "both"
    seconds: Annotated[float | None, AfterValidator(_whole_seconds)] = None  # None: 3 s
    multi: int | None = Field(default=None, ge=1, le=MAX_PROCESSES)  # parallel processes
    per_cluster: bool = True  # on big.LITTLE, one run per cluster pinned with taskset


# --- argv -----------------------------------------------------------------------------


def version_argv(program: str) -> list[str]:
    return [program, "version"]


_VERSION = re.compile(r"^(?P<name>OpenSSL|LibreSSL) (?P<version>\d+\.\d+\.\d+[a-z]*)", re.M)
_NUMBERS = re.compile(r"(\d+)\.(\d+)\.(\d+)[a-z]*")


def parse_version(text: str) -> str | None:
    """'OpenSSL 3.0.19 27 Jan 2026 (Library: ...)' -> '3.0.19', 'OpenSSL 1.0.2g ...' ->
    '1.0.2g'. LibreSSL keeps its name ('LibreSSL 3.8.2'): its numbers are not OpenSSL's.
    The program's own version, not the library's: the options are the program's."""
    match = _VERSION.search(text)
    if match is None:
        return None
    if match["name"] == "LibreSSL":
        return f"LibreSSL {match['version']}"
    return match["version"]


def supports_bytes_and_seconds(version: str | None) -> bool:
    """OpenSSL 1.1.1 and later have -bytes and -seconds; older, LibreSSL and unknown not."""
    match = _NUMBERS.fullmatch(version or "")
    return match is not None and tuple(int(n) for n in match.groups()) >= (1, 1, 1)


def commands(
    options: Mapping[str, object],
    program: str,
    cpus: HostCpus,
    *,
    version: str | None = None,
) -> list[Command]:
    """One command per CPU cluster, block size, API and (with EVP) cipher.

    `version` is parse_version's answer; None (not known) runs openssl's own block sizes,
    which every version understands."""
    opts = Options.model_validate(dict(options))
    sized = supports_bytes_and_seconds(version)
    apis = {"both": (False, True), "with": (True,), "without": (False,)}[opts.evp]
    common = [program, "speed", "-elapsed"]
    if sized and opts.seconds is not None:
        common += ["-seconds", str(int(opts.seconds))]
    if opts.multi is not None:
        common += ["-multi", str(opts.multi)]
    each = int(opts.seconds) if sized and opts.seconds is not None else DEFAULT_SECONDS
    sizes_per_run = 1 if sized else len(_OWN_SIZES)
    blocks: Sequence[int | None] = opts.blocks if sized else [None]
    requested = frozenset(block_label(size) for size in opts.blocks)

    result = []
    for pin, cluster_labels in _placements(opts, cpus):
        for block in blocks:
            size_argv = [] if block is None else ["-bytes", str(block)]
            for evp in apis:
                labels = (("api", "EVP" if evp else "no EVP"), *cluster_labels)
                if opts.multi is not None:
                    labels = (*labels, ("processes", str(opts.multi)))
                groups = [[c] for c in opts.ciphers] if evp else [list(opts.ciphers)]
                for ciphers in groups:
                    algorithms = ["-evp", *ciphers] if evp else ciphers
                    measurements = len(ciphers) * sizes_per_run
                    result.append(
                        Command(
                            argv=(*pin, *common, *size_argv, *algorithms),
                            labels=labels,
                            timeout=_STARTUP_SECONDS + 2 * measurements * each,
                            # Without -bytes openssl measures all its sizes: keep the asked.
                            only=() if sized else (("block", requested),),
                        )
                    )
    return result


def _placements(
    opts: Options, cpus: HostCpus
) -> list[tuple[tuple[str, ...], tuple[tuple[str, str], ...]]]:
    """(taskset prefix, cluster label) per run: one per cluster when pinning applies."""
    if not (opts.per_cluster and len(cpus.clusters) > 1 and cpus.has_taskset):
        return [((), ())]
    return [
        (("taskset", "-c", cpu_list(cluster)), (("cluster", _cluster_name(cpus, i)),))
        for i, cluster in enumerate(cpus.clusters)
    ]


def _cluster_name(cpus: HostCpus, index: int) -> str:
    if len(cpus.cluster_names) == len(cpus.clusters):
        return cpus.cluster_names[index]
    return f"cpu{cpu_list(cpus.clusters[index])}"


def cpu_list(cpus: Sequence[int]) -> str:
    """(0, 1, 2, 3) -> '0-3', (4, 5) -> '4-5', (0, 2) -> '0,2': taskset -c's list."""
    ranges: list[list[int]] = []
    for cpu in sorted(cpus):
        if ranges and cpu == ranges[-1][1] + 1:
            ranges[-1][1] = cpu
        else:
            ranges.append([cpu, cpu])
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in ranges)


def notices(options: Mapping[str, object], cpus: HostCpus, version: str | None) -> list[str]:
    """What to say before measuring (the BenchDriver protocol): an unpinned big.LITTLE
    host, an openssl too old to measure the asked block sizes alone."""
    said = [pinning_note(cpus, options), version_note(options, version)]
    return [note for note in said if note is not None]


def pinning_note(cpus: HostCpus, options: Mapping[str, object] | None = None) -> str | None:
    """Why the runs are not pinned per cluster on a big.LITTLE host, or None if they are
    (or the host has one kind of core, or the plan asked for no pinning)."""
    if len(cpus.clusters) < 2 or cpus.has_taskset:
        return None
    if options is not None and not Options.model_validate(dict(options)).per_cluster:
        return None
    names = ", ".join(cpus.cluster_names) or f"{len(cpus.clusters)} clusters"
    return (
        f"this host has {len(cpus.clusters)} kinds of CPU core ({names}) but no taskset "
        "(busybox often lacks it): openssl speed runs once, unpinned, on whichever cores "
        "the scheduler picks, and its figures carry no cluster label"
    )


def version_note(options: Mapping[str, object], version: str | None) -> str | None:
    """What an openssl without -bytes/-seconds measures instead of the plan's request, or
    None when it can do as asked."""
    if supports_bytes_and_seconds(version):
        return None
    opts = Options.model_validate(dict(options))
    own = own_block_sizes(version)
    which = f"openssl {version}" if version else "an openssl of unknown version"
    note = (
        f"{which} has no -bytes or -seconds: it measures its own block sizes "
        f"({block_label(own[0])} to {block_label(own[-1])}) for {DEFAULT_SECONDS} s each, "
        "and the requested ones are kept"
    )
    missing = [block_label(b) for b in opts.blocks if b not in own]
    if missing:
        note += f"; {', '.join(missing)} cannot be measured"
    return note


def own_block_sizes(version: str | None) -> tuple[int, ...]:
    """The sizes an openssl without -bytes measures: 16 B to 8 KB up to 1.0.x (and in
    LibreSSL), to 16 KB from 1.1.0 on; an unknown version may go to 16 KB."""
    match = _NUMBERS.fullmatch(version or "")
    if (version or "").startswith("LibreSSL") or (
        match is not None and tuple(int(n) for n in match.groups()) < (1, 1, 0)
    ):
        return _OWN_SIZES[:-1]
    return _OWN_SIZES


# --- output ---------------------------------------------------------------------------

_HEADER = re.compile(r"^type\s+(?P<sizes>(?:\d+ bytes\s*)+)$")
# "+H:16:64:256", also as a -multi child's line: "Got: +H:1024 from 0".
_MR_HEADER = re.compile(r"^(?:Got: )?\+H(?P<sizes>(?::\d+)+)(?: from \d+)?$")
_MR_ROW = re.compile(r"^\+F:\d+:(?P<name>[^:]+)(?P<figures>(?::[^:]+)+)$")
# "%11.2fk" above 10000 bytes/s, "%11.2f" below; "inf" when no time was measured.
_FIGURE = re.compile(r"(?P<number>\d+\.\d\d|inf|-?nan)(?P<kilo>k?)")
_ERROR_WORDS = re.compile(
    r"error|unknown|invalid|bad option|not supported|unsupported|can't|cannot|fail|usage",
    re.IGNORECASE,
)


def measurement_name(openssl_name: str) -> str:
    """The name openssl prints -> the measurement's: 'aes-128 cbc' (1.x without EVP),
    'aes-128-cbc', 'AES-128-CBC' (3.x with EVP) -> 'AES-128-CBC', as seed 002 writes it."""
    return "-".join(openssl_name.split()).upper()


def block_label(size: int) -> str:
    """16 -> '16 B', 1024 -> '1 KB', 8192 -> '8 KB' (openssl's sizes are binary)."""
    for unit, scale in (("MB", 2**20), ("KB", 2**10)):
        if size >= scale and size % scale == 0:
            return f"{size // scale} {unit}"
    return f"{size} B"


def parse(text: str, *, blocks: Collection[int] | None = None) -> tuple[Measurement, ...]:
    """Every figure of openssl speed's table, in bytes per second as printed.

    `blocks` keeps only those block sizes (for an openssl that measured its own). A figure
    that is not finite (user time 0 without -elapsed) is left out. BenchParseError, with
    openssl's own words, when no figure is left."""
    sizes: tuple[int, ...] = ()
    figures: list[tuple[str, int, Decimal]] = []
    for raw in text.splitlines():
        line = raw.strip()
        header = _HEADER.match(line) or _MR_HEADER.match(line)
        if header:
            sizes = tuple(int(s) for s in re.findall(r"\d+", header["sizes"]))
        elif sizes:
            row = _mr_row(line, len(sizes)) or _table_row(line, len(sizes))
            if row is not None:
                name, values = row
                figures += [(name, size, v) for size, v in zip(sizes, values, strict=True)]
    finite = [(n, s, v) for n, s, v in figures if v.is_finite()]
    kept = [(n, s, v) for n, s, v in finite if blocks is None or s in blocks]
    if not kept:
        raise BenchParseError(_why_no_figure(text, figures, finite, blocks))
    return tuple(
        Measurement(
            name=measurement_name(name),
            unit="B/s",
            better=Better.HIGHER,
            value=float(value),
            labels=(("block", block_label(size)),),
        )
        for name, size, value in kept
    )


def _mr_row(line: str, count: int) -> tuple[str, list[Decimal]] | None:
    """'+F:19:aes-128-cbc:1164778496.00' (bytes/s); a child's 'Got: +F' line is not one."""
    match = _MR_ROW.match(line)
    if match is None:
        return None
    values = [_figure(f) for f in match["figures"].split(":")[1:]]
    if len(values) != count or any(v is None for v in values):
        return None
    return match["name"], [v for v in values if v is not None]


def _table_row(line: str, count: int) -> tuple[str, list[Decimal]] | None:
    """'aes-128 cbc      49674.25k  ...': a name, then one figure per block size."""
    words = line.split()
    if len(words) <= count or words[0] in ("type", "Got:") or words[0].startswith("+"):
        return None
    values = [_figure(w, kilo=True) for w in words[-count:]]
    if any(v is None for v in values):
        return None
    return " ".join(words[:-count]), [v for v in values if v is not None]


def _figure(word: str, *, kilo: bool = False) -> Decimal | None:
    """'92054.87k' -> 92054870 bytes/s, exactly (Decimal, no binary rounding on the way)."""
    match = _FIGURE.fullmatch(word)
    if match is None or (match["kilo"] and not kilo):
        return None
    value = Decimal(match["number"])
    return value * 1000 if match["kilo"] else value


def _why_no_figure(
    text: str,
    figures: list[tuple[str, int, Decimal]],
    finite: list[tuple[str, int, Decimal]],
    blocks: Collection[int] | None,
) -> str:
    if finite and blocks is not None:
        measured = sorted({s for _, s, _ in finite})
        return (
            f"openssl speed measured {', '.join(block_label(s) for s in measured)}, none of "
            f"the requested {', '.join(block_label(b) for b in sorted(blocks))}"
        )
    if figures:
        return "openssl speed printed only infinite figures (no time measured: use -elapsed)"
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return "openssl speed printed nothing"
    # openssl's complaint if it made one, else where it stopped (a run stopped as hung).
    said = next((line for line in lines if _ERROR_WORDS.search(line)), lines[-1])
    return f"openssl speed printed no figure: {said}"
