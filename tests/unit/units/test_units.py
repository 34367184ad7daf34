"""Rates, sizes and delays as people write them (units.py): SI prefixes for rates, `k`
and `K` alike 1000 as in iperf3; binary for sizes, as both iperfs read `-w 64K`; a
delay always with its unit. And how a rate is printed, at each unit's edge."""

from __future__ import annotations

import pytest

from wirespeed.units import format_delay, format_rate, mbit, parse_delay, parse_rate, parse_size


@pytest.mark.parametrize(
    ("text", "bits"),
    [
        ("64k", 64_000),
        ("64K", 64_000),
        ("1.5k", 1_500),
        ("300M", 300_000_000),
        ("300mbit", 300_000_000),
        ("300 Mbps", 300_000_000),
        ("2.5gbit", 2_500_000_000),
        ("1G", 1_000_000_000),
        ("1T", 10**12),
        ("100kbit/s", 100_000),
        ("9600b/s", 9_600),
        ("12", 12),
        ("1", 1),  # the least rate there is
        (1, 1),
        (" 7 ", 7),
        (94_100_000, 94_100_000),
        (1.5e6, 1_500_000),
    ],
)
def test_a_rate_is_si_whatever_the_case_of_its_prefix(text: str | float, bits: int) -> None:
    assert parse_rate(text) == bits


def test_a_fraction_of_a_bit_rounds_to_the_nearest() -> None:
    assert parse_rate("1.0005k") == 1_000  # 1000.5 rounds to even
    assert parse_rate("1.0006k") == 1_001
    assert parse_rate(2.9) == 2  # a number is taken as bit/s, cut


@pytest.mark.parametrize("text", ["0", "0M", "0.0k", 0, -5, 0.0, "0.4", 0.4, "0.0004k"])
def test_a_rate_of_less_than_a_bit_a_second_is_refused(text: str | float) -> None:
    # 0.4 would have become a rate of 0 bit/s.
    with pytest.raises(ValueError, match="a rate must be at least 1 bit/s, got "):
        parse_rate(text)


@pytest.mark.parametrize("text", ["fast", "1 Mibit", "1Kibps", "-5M", "M", "1e6", "", True])
def test_what_is_not_a_rate_is_refused_with_examples(text: object) -> None:
    with pytest.raises(ValueError, match=r"not a rate: .* \(write e\.g\. 1000M, 1G, 300mbit"):
        parse_rate(text)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("64K", 65_536),
        ("64k", 65_536),
        ("128KB", 131_072),
        ("128KiB", 131_072),
        ("1M", 1_048_576),
        ("1m", 1_048_576),
        ("2G", 2 * 2**30),
        ("1.5K", 1_536),
        ("1470", 1_470),
        ("1470B", 1_470),
        ("1", 1),  # the least size there is
        (1, 1),
        (1470, 1_470),
        (1470.9, 1_470),
    ],
)
def test_a_size_is_binary(text: str | float, size: int) -> None:
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["0", "0K", 0, -1, "0.4", 0.4])
def test_a_size_of_less_than_a_byte_is_refused(text: str | float) -> None:
    with pytest.raises(ValueError, match="a size must be at least 1 byte, got "):
        parse_size(text)


@pytest.mark.parametrize("text", ["big", "1T", "64 KBytes", "", False])
def test_what_is_not_a_size_is_refused_with_examples(text: object) -> None:
    with pytest.raises(ValueError, match=r"not a size: .* \(write e\.g\. 64K, 128KB, 1M or 1470\)"):
        parse_size(text)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("40ms", 0.04), ("0.04s", 0.04), ("40000us", 0.04), (" 2 s ", 2.0), ("1.5ms", 0.0015)],
)
def test_a_delay_is_read_with_its_unit(text: str, seconds: float) -> None:
    assert parse_delay(text) == pytest.approx(seconds, rel=1e-12)


@pytest.mark.parametrize("text", ["40", 40, 0.04, "40 min", "ms"])
def test_a_delay_without_its_unit_is_refused(text: object) -> None:
    with pytest.raises(ValueError, match=r"not a delay: .* \(write it with its unit: 40ms"):
        parse_delay(text)  # type: ignore[arg-type]


def test_a_delay_of_zero_is_refused() -> None:
    with pytest.raises(ValueError, match="a delay must be positive, got '0ms'"):
        parse_delay("0ms")


def test_a_delay_is_written_in_milliseconds_down_to_one_then_microseconds() -> None:
    assert format_delay(0.04) == "40ms"
    assert format_delay(0.001) == "1ms"
    assert format_delay(0.0015) == "1.5ms"
    assert format_delay(0.000999) == "999us"
    assert format_delay(2.0) == "2000ms"
    # Written, then read back: the same delay.
    for seconds in (0.04, 0.001, 0.0005, 1.25):
        assert parse_delay(format_delay(seconds)) == pytest.approx(seconds)


@pytest.mark.parametrize(
    ("bits", "text"),
    [
        (None, "-"),
        (941_500_000, "941.5 Mbit/s"),
        (10**9, "1.000 Gbit/s"),
        (999_999_999, "1000.0 Mbit/s"),
        (43_200_000_000, "43.200 Gbit/s"),
        (10_000_000, "10.0 Mbit/s"),
        (10_000, "10.0 kbit/s"),
        (9_999, "9999 bit/s"),
        (64_000, "64.0 kbit/s"),
        (0, "0 bit/s"),
    ],
)
def test_a_rate_is_printed_in_the_unit_of_its_magnitude(bits: float | None, text: str) -> None:
    assert format_rate(bits) == text


def test_mbit_is_a_million() -> None:
    assert mbit(941_500_000) == 941.5
