"""Which socket of the client's table is its connection to the server: the address the
kernel prints against the target the client was given."""

from __future__ import annotations

import pytest

from wirespeed.run.trial import _same_host


@pytest.mark.parametrize(
    ("remote", "target"),
    [
        ("198.19.1.1", "198.19.1.1"),
        ("::ffff:198.19.1.1", "198.19.1.1"),  # a dual-stack socket's IPv4 peer
        ("fd00::1", "fd00:0:0::1"),  # written out differently
        ("fe80::1", "fe80::1%eth0"),  # with a scope
        ("127.0.0.1", "localhost"),  # a host name: not resolved as the client would
    ],
)
def test_the_same_server_written_either_way_is_the_target(remote: str, target: str) -> None:
    assert _same_host(remote, target)


def test_another_address_is_not_the_target() -> None:
    assert not _same_host("198.19.1.2", "198.19.1.1")
    assert not _same_host("::ffff:198.19.1.2", "198.19.1.1")
