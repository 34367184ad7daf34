"""openssl speed: argv per cluster, block size and API, and the figures of its table read
exactly as printed (tests/fixtures/openssl: this machine's OpenSSL 3.0.19 and sbc-bench's
published tables of ARM boards with 1.0.2g, 1.1.0g and 1.1.1f)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from decimal import Decimal
from pathlib import Path

import pytest
from pydantic import ValidationError

from wirespeed.model import Better, Measurement, Tool
from wirespeed.tools import openssl
from wirespeed.tools.bench import (
    BenchDriver,
    BenchParseError,
    Command,
    HostCpus,
    with_labels,
)
from wirespeed.trial_kind import hooks_of

CAPTURES = Path(__file__).parents[2] / "fixtures" / "openssl"

# The module itself is the driver: mypy checks that it has everything the run loop uses.
# All but `Options`, which bench.py declares as a settable `type[BaseModel]`: mypy holds a
# settable member invariant, so no module's own class can match it; declared read-only
# (`@property def Options(self) -> type[BaseModel]`) it matches, and this ignore goes.
driver: BenchDriver = openssl

ONE_KIND = HostCpus(count=4, clusters=((0, 1, 2, 3),), cluster_names=("Cortex-A53 (cpu0-3)",))
R4S = HostCpus(
    count=6,
    clusters=((0, 1, 2, 3), (4, 5)),
    cluster_names=("Cortex-A53 (cpu0-3)", "Cortex-A72 (cpu4-5)"),
    has_taskset=True,
)
R4S_BUSYBOX = HostCpus(
    count=6, clusters=R4S.clusters, cluster_names=R4S.cluster_names, has_taskset=False
)


def text(name: str) -> str:
    return (CAPTURES / f"{name}.txt").read_text()


def figures(name: str) -> list[tuple[str, str, float]]:
    return [(m.name, dict(m.labels)["block"], m.value) for m in openssl.parse(text(name))]


def argvs(commands: list[Command]) -> list[str]:
    return [" ".join(c.argv) for c in commands]


# --- the driver -------------------------------------------------------------------------


def test_the_openssl_tool_is_this_driver() -> None:
    found: object = hooks_of(Tool.OPENSSL).driver
    assert found is openssl
    assert openssl.TOOL is Tool.OPENSSL
    assert openssl.PROGRAMS == ("openssl",)
    assert openssl.PACKAGES == {"Debian": "openssl", "OpenWrt": "openssl-util"}
    assert openssl.version_argv("/usr/bin/openssl") == ["/usr/bin/openssl", "version"]


# --- the parser on every capture ----------------------------------------------------------


@pytest.mark.parametrize(
    ("capture", "expected"),
    [
        # AES-128-CBC    1135920.13k
        ("speed-evp-1024", [("AES-128-CBC", "1 KB", 1_135_920_130.0)]),
        (
            "speed-two-ciphers-8192",
            [("AES-128-CBC", "8 KB", 1_192_009_730.0), ("AES-256-CBC", "8 KB", 867_074_050.0)],
        ),
        (
            "speed-three-algorithms-16",
            [
                ("SHA256", "16 B", 100_283_870.0),
                ("AES-128-CBC", "16 B", 699_615_410.0),
                ("AES-256-CBC", "16 B", 570_632_060.0),
            ],
        ),
        ("speed-pinned-evp-1024", [("AES-256-CBC", "1 KB", 865_569_790.0)]),
        (
            "speed-multi2-1024",
            [("AES-128-CBC", "1 KB", 2_309_033_980.0), ("AES-256-CBC", "1 KB", 1_567_044_610.0)],
        ),
        ("speed-multi2-evp-1024", [("AES-128-CBC", "1 KB", 2_340_274_180.0)]),
        # -mr prints bytes/s: +F:6:sha256:1239493632.00
        (
            "speed-mr-1024",
            [("SHA256", "1 KB", 1_239_493_632.0), ("AES-128-CBC", "1 KB", 1_164_778_496.0)],
        ),
        ("speed-multi2-mr-1024", [("AES-128-CBC", "1 KB", 2_338_379_776.0)]),
    ],
)
def test_each_figure_is_the_bytes_per_second_openssl_printed(
    capture: str, expected: list[tuple[str, str, float]]
) -> None:
    assert figures(capture) == expected


@pytest.mark.parametrize(
    ("capture", "name", "values"),
    [
        # aes-128-cbc     901257.22k  1100662.02k  1129237.76k  1186106.37k  1192402.94k ...
        (
            "speed-default-sizes",
            "AES-128-CBC",
            [
                *(901_257_220.0, 1_100_662_020.0, 1_129_237_760.0),
                *(1_186_106_370.0, 1_192_402_940.0, 1_176_911_870.0),
            ],
        ),
        (
            "speed-evp-default-sizes",
            "AES-256-CBC",
            [
                *(596_999_440.0, 827_318_530.0, 846_927_100.0),
                *(850_126_850.0, 850_493_440.0, 852_770_820.0),
            ],
        ),
    ],
)
def test_without_bytes_openssl_measures_its_six_own_block_sizes(
    capture: str, name: str, values: list[float]
) -> None:
    blocks = ["16 B", "64 B", "256 B", "1 KB", "8 KB", "16 KB"]
    assert figures(capture) == [(name, b, v) for b, v in zip(blocks, values, strict=True)]


def test_every_measurement_is_bytes_per_second_where_more_is_better() -> None:
    for capture in CAPTURES.glob("speed-*.txt"):
        if "unknown" in capture.name or "killed" in capture.name:
            continue
        for m in openssl.parse(capture.read_text()):
            assert (m.unit, m.better) == ("B/s", Better.HIGHER)
            assert [key for key, _ in m.labels] == ["block"]  # the command adds the rest


def test_with_multi_the_figure_is_the_parents_sum_not_a_childs() -> None:
    # Got: +F:19:aes-128-cbc:1155864576.00 from 0  /  ...:1153169408.00 from 1
    # aes-128-cbc    2309033.98k   (the parent's table, which has no "type" header)
    children = [1_155_864_576, 1_153_169_408]
    [(_, _, value), _] = figures("speed-multi2-1024")
    assert value == 2_309_033_980.0
    assert value == pytest.approx(sum(children), abs=5)


def test_an_old_openssl_table_has_five_block_sizes_up_to_8_kb() -> None:
    # OpenSSL 1.0.2g on a Cortex-A53 board without crypto extensions (sbc-bench, 2018).
    found = figures("sbc-bench-1ixi-odroid64-1.0.2g")
    assert len(found) == 6 * 5  # two runs of three ciphers, five sizes each
    assert found[:5] == [
        ("AES-128-CBC", "16 B", 49_674_250.0),
        ("AES-128-CBC", "64 B", 56_971_900.0),
        ("AES-128-CBC", "256 B", 59_571_290.0),
        ("AES-128-CBC", "1 KB", 60_246_360.0),
        ("AES-128-CBC", "8 KB", 60_440_580.0),
    ]
    assert found[-1] == ("AES-256-CBC", "8 KB", 48_496_640.0)


def test_openssl_1_1_0_on_the_r2s_soc_measures_up_to_16_kb() -> None:
    found = figures("sbc-bench-1iGW-rock64-1.1.0g")
    assert len(found) == 6 * 6
    assert found[5] == ("AES-128-CBC", "16 KB", 967_524_350.0)
    assert found[-6] == ("AES-256-CBC", "16 B", 83_920_390.0)


def test_the_r4s_soc_little_and_big_cores_each_have_their_row() -> None:
    # sbc-bench pinned one run to cpu0 (Cortex-A53) and one to cpu4 (Cortex-A72).
    one_kb = [v for n, b, v in figures("sbc-bench-3GmR-nanopi-neo4-1.1.1f") if b == "1 KB"]
    a53_128, a72_128, a53_192, a72_192, a53_256, a72_256 = one_kb
    assert (a53_128, a72_128) == (1_015_278_250.0, 1_439_525_210.0)
    assert (a53_256, a72_256) == (655_839_230.0, 1_099_550_040.0)
    assert a53_192 < a72_192


def test_only_the_requested_block_sizes_are_kept_from_an_old_openssls_table() -> None:
    kept = openssl.parse(text("sbc-bench-1ixi-odroid64-1.0.2g"), blocks={1024, 8192})
    assert {dict(m.labels)["block"] for m in kept} == {"1 KB", "8 KB"}
    assert len(kept) == 6 * 2
    with pytest.raises(BenchParseError, match=r"measured 16 B, .*8 KB, none of .* 16 KB"):
        openssl.parse(text("sbc-bench-1ixi-odroid64-1.0.2g"), blocks={16384})


@pytest.mark.parametrize(
    ("capture", "said"),
    [
        ("speed-unknown-cipher", "speed: Unknown algorithm aes-128-foo"),
        ("speed-evp-unknown-cipher", "speed: aes-128-foo is an unknown cipher or digest"),
    ],
)
def test_an_unknown_cipher_is_an_error_in_openssls_own_words(capture: str, said: str) -> None:
    with pytest.raises(BenchParseError) as error:
        openssl.parse(text(capture))
    assert str(error.value) == f"openssl speed printed no figure: {said}"


def test_a_run_stopped_as_hung_says_where_it_stopped() -> None:
    # Killed during its second block size: progress lines, no table.
    with pytest.raises(BenchParseError) as error:
        openssl.parse(text("speed-killed"))
    assert str(error.value) == (
        "openssl speed printed no figure: Doing AES-128-CBC for 1s on 64 size blocks:"
    )


def test_no_output_at_all_is_an_error_too() -> None:
    with pytest.raises(BenchParseError, match="printed nothing"):
        openssl.parse("")
    with pytest.raises(BenchParseError, match=r"no figure: OpenSSL 3\.0\.19"):
        openssl.parse(text("version"))  # a version line holds no figure


@pytest.mark.parametrize(
    ("printed", "name"),
    [
        ("aes-128 cbc", "AES-128-CBC"),  # speed.c's names[] of 1.0.x/1.1.x without EVP
        ("aes-128-cbc", "AES-128-CBC"),
        ("AES-128-CBC", "AES-128-CBC"),  # 3.x with -evp
        ("des ede3", "DES-EDE3"),
        ("sha256", "SHA256"),
    ],
)
def test_measurement_names_are_the_ciphers_as_seed_002_writes_them(printed: str, name: str) -> None:
    assert openssl.measurement_name(printed) == name


@pytest.mark.parametrize(
    ("size", "label"),
    [
        *((16, "16 B"), (1000, "1000 B"), (1024, "1 KB"), (8192, "8 KB")),
        *((16384, "16 KB"), (1536, "1536 B"), (16 * 2**20, "16 MB")),
    ],
)
def test_block_labels_count_openssls_binary_kilobytes(size: int, label: str) -> None:
    assert openssl.block_label(size) == label


# --- the version ----------------------------------------------------------------------------


def test_the_version_is_the_programs_own() -> None:
    assert openssl.parse_version(text("version")) == "3.0.19"
    # Line 1 of the 2018 sbc-bench log is `openssl version` as printed.
    assert openssl.parse_version(text("sbc-bench-1ixi-odroid64-1.0.2g")) == "1.0.2g"
    assert openssl.parse_version("speed: Unknown algorithm aes-128-foo") is None


@pytest.mark.parametrize(
    ("version", "sized"),
    [
        *(("3.0.19", True), ("1.1.1f", True), ("1.1.1", True), ("1.1.0g", False)),
        *(("1.0.2g", False), ("LibreSSL 3.8.2", False), (None, False)),
    ],
)
def test_bytes_and_seconds_exist_from_openssl_1_1_1_on(version: str | None, sized: bool) -> None:
    assert openssl.supports_bytes_and_seconds(version) is sized


# --- argv -----------------------------------------------------------------------------------


def test_the_default_test_is_seed_002s_with_and_without_evp_at_1_and_8_kb() -> None:
    commands = openssl.commands({}, "openssl", ONE_KIND, version="3.0.19")
    assert argvs(commands) == [
        "openssl speed -elapsed -bytes 1024 aes-128-cbc aes-256-cbc",
        "openssl speed -elapsed -bytes 1024 -evp aes-128-cbc",
        "openssl speed -elapsed -bytes 1024 -evp aes-256-cbc",
        "openssl speed -elapsed -bytes 8192 aes-128-cbc aes-256-cbc",
        "openssl speed -elapsed -bytes 8192 -evp aes-128-cbc",
        "openssl speed -elapsed -bytes 8192 -evp aes-256-cbc",
    ]
    assert [c.labels for c in commands[:2]] == [(("api", "no EVP"),), (("api", "EVP"),)]
    # Two ciphers of 3 s, one of 3 s; twice that and 30 s to start.
    assert [c.timeout for c in commands[:2]] == [42.0, 36.0]


@pytest.mark.parametrize(
    ("evp", "expected"),
    [
        ("with", ["-evp aes-128-cbc", "-evp sha256"]),
        ("without", ["aes-128-cbc sha256"]),
        ("both", ["aes-128-cbc sha256", "-evp aes-128-cbc", "-evp sha256"]),
    ],
)
def test_evp_takes_one_cipher_per_run_and_no_evp_takes_them_all(
    evp: str, expected: list[str]
) -> None:
    options = {"ciphers": ["aes-128-cbc", "sha256"], "blocks": [1024], "evp": evp}
    commands = openssl.commands(options, "openssl", ONE_KIND, version="3.0.19")
    assert [a.removeprefix("openssl speed -elapsed -bytes 1024 ") for a in argvs(commands)] == (
        expected
    )


def test_each_block_size_is_a_run_of_its_own_in_plain_bytes() -> None:
    options = {"blocks": ["1K", "8KB", 16, "16 KiB"], "evp": "with", "ciphers": ["aes-128-gcm"]}
    commands = openssl.commands(options, "openssl", ONE_KIND, version="3.0.19")
    assert [c.argv[c.argv.index("-bytes") + 1] for c in commands] == [
        "1024",
        "8192",
        "16",
        "16384",
    ]


def test_seconds_and_processes_go_to_every_run() -> None:
    options = {"seconds": 1, "multi": 2, "evp": "with", "blocks": [1024]}
    commands = openssl.commands(options, "openssl", ONE_KIND, version="3.0.19")
    assert argvs(commands) == [
        "openssl speed -elapsed -seconds 1 -multi 2 -bytes 1024 -evp aes-128-cbc",
        "openssl speed -elapsed -seconds 1 -multi 2 -bytes 1024 -evp aes-256-cbc",
    ]
    assert commands[0].labels == (("api", "EVP"), ("processes", "2"))
    assert commands[0].timeout == 32.0


def test_on_big_little_each_cluster_runs_pinned_with_taskset() -> None:
    options = {"evp": "with", "ciphers": ["aes-128-cbc"], "blocks": [1024]}
    commands = openssl.commands(options, "openssl", R4S, version="3.0.19")
    assert argvs(commands) == [
        "taskset -c 0-3 openssl speed -elapsed -bytes 1024 -evp aes-128-cbc",
        "taskset -c 4-5 openssl speed -elapsed -bytes 1024 -evp aes-128-cbc",
    ]
    assert [c.labels for c in commands] == [
        (("api", "EVP"), ("cluster", "Cortex-A53 (cpu0-3)")),
        (("api", "EVP"), ("cluster", "Cortex-A72 (cpu4-5)")),
    ]
    assert openssl.pinning_note(R4S) is None


def test_pinned_processes_stay_on_their_cluster() -> None:
    options = {"multi": 4, "evp": "without", "blocks": [1024]}
    [little, big] = openssl.commands(options, "openssl", R4S, version="3.0.19")
    assert little.argv[:5] == ("taskset", "-c", "0-3", "openssl", "speed")
    assert big.labels == (
        ("api", "no EVP"),
        ("cluster", "Cortex-A72 (cpu4-5)"),
        ("processes", "4"),
    )


def test_without_taskset_big_little_runs_once_unpinned_and_says_why() -> None:
    options = {"evp": "with", "ciphers": ["aes-128-cbc"], "blocks": [1024]}
    commands = openssl.commands(options, "openssl", R4S_BUSYBOX, version="3.0.19")
    assert argvs(commands) == ["openssl speed -elapsed -bytes 1024 -evp aes-128-cbc"]
    assert commands[0].labels == (("api", "EVP"),)
    note = openssl.pinning_note(R4S_BUSYBOX)
    assert note is not None
    assert "no taskset" in note and "Cortex-A53 (cpu0-3), Cortex-A72 (cpu4-5)" in note


def test_pinning_can_be_turned_off_and_one_kind_of_core_needs_none() -> None:
    options = {"per_cluster": False, "evp": "with", "ciphers": ["sha256"], "blocks": [64]}
    [command] = openssl.commands(options, "openssl", R4S, version="3.0.19")
    assert command.argv[0] == "openssl"
    assert command.labels == (("api", "EVP"),)
    assert openssl.pinning_note(R4S_BUSYBOX, {"per_cluster": False}) is None
    assert openssl.pinning_note(ONE_KIND) is None


def test_a_cluster_without_a_name_is_named_by_its_cpus() -> None:
    cpus = HostCpus(count=8, clusters=((0, 1, 2, 3), (4, 5, 6, 7)), has_taskset=True)
    options = {"evp": "with", "ciphers": ["aes-128-cbc"], "blocks": [1024]}
    commands = openssl.commands(options, "openssl", cpus, version="3.0.19")
    assert [dict(c.labels)["cluster"] for c in commands] == ["cpu0-3", "cpu4-7"]


@pytest.mark.parametrize(("cpus", "listed"), [((0, 1, 2, 3), "0-3"), ((5, 4), "4-5")])
def test_taskset_gets_a_cpu_list(cpus: tuple[int, ...], listed: str) -> None:
    assert openssl.cpu_list(cpus) == listed
    assert openssl.cpu_list((0, 2, 3, 7)) == "0,2-3,7"


@pytest.mark.parametrize("version", ["1.0.2g", "1.1.0g", "LibreSSL 3.8.2", None])
def test_an_openssl_without_bytes_measures_its_own_sizes_once(version: str | None) -> None:
    options = {"seconds": 1, "multi": 2}
    commands = openssl.commands(options, "openssl", ONE_KIND, version=version)
    assert argvs(commands) == [
        "openssl speed -elapsed -multi 2 aes-128-cbc aes-256-cbc",
        "openssl speed -elapsed -multi 2 -evp aes-128-cbc",
        "openssl speed -elapsed -multi 2 -evp aes-256-cbc",
    ]
    # Six sizes of 3 s (no -seconds) per cipher, twice over, and 30 s to start.
    assert [c.timeout for c in commands] == [30 + 2 * 2 * 6 * 3, 30 + 2 * 6 * 3, 66.0]
    note = openssl.version_note(options, version)
    assert note is not None and "has no -bytes or -seconds" in note


def test_the_version_note_names_what_an_old_openssl_cannot_measure() -> None:
    options = {"blocks": ["1K", 1000, "16K"]}
    assert openssl.version_note(options, "1.0.2g") == (
        "openssl 1.0.2g has no -bytes or -seconds: it measures its own block sizes "
        "(16 B to 8 KB) for 3 s each, and the requested ones are kept; "
        "1000 B, 16 KB cannot be measured"
    )
    assert openssl.version_note(options, "3.0.19") is None
    assert openssl.own_block_sizes("1.1.0g")[-1] == 16384


# --- the options -------------------------------------------------------------------------


def test_the_options_default_to_seed_002s_test() -> None:
    assert openssl.Options().model_dump() == {
        "ciphers": ["aes-128-cbc", "aes-256-cbc"],
        "blocks": [1024, 8192],
        "evp": "both",
        "seconds": None,
        "multi": None,
        "per_cluster": True,
    }


def test_cipher_names_as_seed_002_writes_them_are_accepted() -> None:
    options = openssl.Options.model_validate({"ciphers": ["AES-128-CBC", " chacha20-poly1305"]})
    assert options.ciphers == ["aes-128-cbc", "chacha20-poly1305"]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"ciphers": ["aes 128"]}, "not a cipher or digest name"),
        ({"ciphers": ["aes_128_cbc"]}, "lowercase letters, digits and -"),
        ({"ciphers": ["rsa2048"]}, "rsa2048 is a public-key algorithm"),
        ({"ciphers": []}, "at least 1 item"),
        ({"ciphers": ["sha256", "SHA256"]}, "sha256 is listed twice"),
        ({"ciphers": [128]}, "valid string"),
        ({"blocks": ["1.5K"]}, "not a block size: write e.g. 16, 1024, 1K or 8KB"),
        ({"blocks": ["big"]}, "not a block size"),
        ({"blocks": [8]}, "outside 16 bytes .. 16 MiB"),
        ({"blocks": ["32M"]}, "outside 16 bytes .. 16 MiB"),
        ({"blocks": [1024.0]}, "expected a block size such as 1024 or 8K"),
        ({"blocks": [True]}, "expected a block size"),
        ({"blocks": [1024, "1K"]}, "1024 is listed twice"),
        ({"evp": "yes"}, "'both', 'with' or 'without'"),
        ({"seconds": 1.5}, "whole number"),
        ({"seconds": 0}, "seconds must be 1 .. 3600"),
        ({"multi": 0}, "greater than or equal to 1"),
        ({"cipher": ["aes-128-cbc"]}, "Extra inputs are not permitted"),
    ],
)
def test_bad_options_fail_with_a_precise_message(options: dict[str, object], message: str) -> None:
    with pytest.raises(ValidationError, match=re.escape(message)):
        openssl.Options.model_validate(options)


def test_options_are_frozen() -> None:
    options = openssl.Options()
    with pytest.raises(ValidationError):
        options.evp = "with"  # type: ignore[misc]


# --- a real run -----------------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl on PATH")
@pytest.mark.process
def test_a_real_run_reads_the_figure_openssl_printed() -> None:
    version_text = subprocess.run(
        openssl.version_argv("openssl"), capture_output=True, text=True, check=True
    ).stdout
    version = openssl.parse_version(version_text)
    if not openssl.supports_bytes_and_seconds(version):
        pytest.skip(f"openssl {version} has no -bytes/-seconds")
    options = {"ciphers": ["aes-128-cbc"], "blocks": [1024], "evp": "without", "seconds": 1}
    cpus = HostCpus(count=os.cpu_count() or 1)
    [command] = openssl.commands(options, "openssl", cpus, version=version)
    assert command.argv == (
        "openssl",
        *("speed", "-elapsed", "-seconds", "1", "-bytes", "1024", "aes-128-cbc"),
    )
    done = subprocess.run(
        command.argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=command.timeout,
        check=True,
    )
    [measured] = with_labels(openssl.parse(done.stdout), command.labels)
    # What a user reads in the same output, by hand.
    printed = re.search(r"^aes-128[- ]cbc\s+(\d+\.\d\d)k$", done.stdout, re.MULTILINE)
    assert printed is not None
    assert measured == Measurement(
        "AES-128-CBC",
        "B/s",
        Better.HIGHER,
        float(Decimal(printed[1]) * 1000),
        (("block", "1 KB"), ("api", "no EVP")),
    )
    assert measured.item == "AES-128-CBC 1 KB, no EVP"
