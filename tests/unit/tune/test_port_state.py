"""A port's state read from what `ip -j` printed (captured by
tests/fixtures/ports/capture.sh), kept as a journal row and turned back into argv."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from wirespeed.tune.port_state import (
    PortState,
    added_qdiscs,
    nexthop_ids,
    qdisc_deletes,
    read_state,
    route_ports,
)
from wirespeed.tune.ports import port_namespace, port_target, restored_words
from wirespeed.tune.targets import Kind, RefusedError, check_value, parse_target

FIXTURES = Path(__file__).parents[2] / "fixtures" / "ports"


def captured(prefix: str = "") -> PortState:
    interface = "pt-cap1" if prefix else "pt-cap0"
    return read_state(
        interface,
        (FIXTURES / f"{prefix}link.json").read_text(),
        (FIXTURES / f"{prefix}addr.json").read_text(),
        (FIXTURES / f"{prefix}route.json").read_text(),
        "" if prefix else (FIXTURES / "sysctl.txt").read_text(),
    )


def test_a_port_is_read_with_its_own_addresses_and_routes_not_the_kernels() -> None:
    state = captured()
    assert (state.interface, state.mtu, state.up) == ("pt-cap0", 1400, True)
    assert [a.cidr for a in state.own_addresses] == [
        "192.168.71.50/24",
        "10.9.0.5/16",
        "2001:db8:7::5/64",
    ]
    # The link-local address is the kernel's: read, but neither added nor compared.
    assert [a.cidr for a in state.addresses if a.kernel_made] == ["fe80::d02d:f3ff:fee3:51a9/64"]
    # Every table's, IPv6 too, multipath ones through the port; not the other port's
    # routes, nor a route of no port, nor a route by a nexthop object (172.29.0.0/16).
    assert [r.get("dst") for r in state.routes] == [
        "172.30.0.0/16",
        "172.31.0.0/16",
        "default",
        "default",
        "198.51.100.0/24",
        "2001:db8:99::/48",
        "default",
    ]
    assert [sorted(r.devices("pt-cap0")) for r in state.routes if r.nexthops] == [
        ["pt-cap0", "pt-cap2"]
    ] * 3


def test_a_port_that_is_down_is_read_as_down() -> None:
    state = captured("down-")
    assert (state.up, state.own_addresses, state.routes) == (False, (), ())


def test_restore_gives_ip_every_detail_back() -> None:
    state = captured()
    addresses = [a.add_argv("pt-cap0") for a in state.own_addresses]
    assert addresses == [
        ["ip", "addr", "add", "192.168.71.50/24", "dev", "pt-cap0"],
        [
            "ip", "addr", "add", "10.9.0.5/16", "broadcast", "10.9.255.255",
            "label", "pt-cap0:lan", "dev", "pt-cap0",
        ],
        ["ip", "addr", "add", "2001:db8:7::5/64", "nodad", "dev", "pt-cap0"],
    ]  # fmt: skip
    routes = [r.add_argv("pt-cap0") for r in state.routes]
    assert routes == [
        ["ip", "route", "add", "172.30.0.0/16", "via", "10.9.0.1", "dev", "pt-cap0",
         "metric", "7", "table", "100"],
        ["ip", "route", "replace", "172.31.0.0/16", "table", "101",
         "nexthop", "via", "10.9.0.1", "dev", "pt-cap0", "weight", "1",
         "nexthop", "via", "203.0.113.7", "dev", "pt-cap2", "weight", "1", "onlink"],
        ["ip", "route", "add", "default", "via", "192.168.71.1", "dev", "pt-cap0",
         "proto", "static", "metric", "100"],
        ["ip", "route", "replace", "default", "metric", "200",
         "nexthop", "via", "192.168.71.1", "dev", "pt-cap0", "weight", "2",
         "nexthop", "via", "10.10.0.1", "dev", "pt-cap2", "weight", "1"],
        ["ip", "route", "add", "198.51.100.0/24", "via", "203.0.113.9", "dev", "pt-cap0",
         "onlink"],
        ["ip", "-6", "route", "add", "2001:db8:99::/48", "via", "2001:db8:7::1", "dev",
         "pt-cap0", "metric", "1024", "pref", "medium"],
        ["ip", "-6", "route", "replace", "default", "metric", "1024", "pref", "medium",
         "nexthop", "via", "2001:db8:7::1", "dev", "pt-cap0", "weight", "1",
         "nexthop", "via", "2001:db8:8::1", "dev", "pt-cap2", "weight", "1"],
    ]  # fmt: skip


def test_a_journal_row_reads_back_as_the_same_state() -> None:
    state = captured()
    again = PortState.from_json(state.to_json())
    assert again == state
    assert again.same_as(state)


def test_a_multipath_route_is_kept_in_the_journal_row_with_its_nexthops() -> None:
    row = json.loads(captured().to_json())
    assert {
        "dst": "default",
        "metric": "200",
        "nexthops": [
            {"dev": "pt-cap0", "gateway": "192.168.71.1", "weight": 2},
            {"dev": "pt-cap2", "gateway": "10.10.0.1", "weight": 1},
        ],
    } in row["routes"]


def test_a_multipath_route_through_a_port_still_moved_is_left_out_of_the_check() -> None:
    """The other port brings it back: it cannot be there before that port is."""
    state = captured()
    alone = dataclasses.replace(state, routes=tuple(r for r in state.routes if not r.nexthops))
    assert not alone.same_as(state)
    assert alone.same_as(state, absent=frozenset({"pt-cap2"}))


def test_the_ports_of_this_machines_default_routes_include_every_nexthops() -> None:
    assert route_ports((FIXTURES / "default4.json").read_text()) == {"pt-cap0", "pt-cap2"}
    assert route_ports((FIXTURES / "default6.json").read_text()) == {"pt-cap0", "pt-cap2"}
    assert nexthop_ids((FIXTURES / "nexthop.json").read_text()) == ["7"]


def test_every_writable_sysctl_of_the_port_is_kept_and_none_of_another() -> None:
    state = captured()
    sysctls = dict(state.sysctls)
    assert len(sysctls) == 127
    assert all(key.split("/")[:2] in (["ipv4", "conf"], ["ipv4", "neigh"], ["ipv6", "conf"],
                                      ["ipv6", "neigh"]) for key in sysctls)  # fmt: skip
    assert sysctls["ipv4/conf/rp_filter"] == "2"
    assert sysctls["ipv4/conf/arp_ignore"] == "1"
    assert sysctls["ipv6/conf/accept_ra"] == "0"
    assert sysctls["ipv4/neigh/base_reachable_time_ms"] == "45500"
    assert "ipv4/conf/mc_forwarding" not in sysctls  # read-only
    assert "ipv6/conf/stable_secret" not in sysctls
    assert state.sysctl_path("ipv4/conf/rp_filter") == "/proc/sys/net/ipv4/conf/pt-cap0/rp_filter"
    # The same lines read for another port are none of its.
    assert (
        read_state(
            "pt-cap1",
            (FIXTURES / "down-link.json").read_text(),
            "[]",
            "[]",
            (FIXTURES / "sysctl.txt").read_text(),
        ).sysctls
        == ()
    )


def test_the_sysctls_go_into_the_journal_row_and_make_states_differ() -> None:
    state = captured()
    row = json.loads(state.to_json())
    assert row["sysctls"]["ipv4/conf/rp_filter"] == "2"
    assert PortState.from_json(state.to_json()).sysctls == state.sysctls
    changed = dict(state.sysctls) | {"ipv4/conf/rp_filter": "0"}
    other = PortState(
        state.interface, state.mtu, state.up, state.addresses, state.routes,
        tuple(sorted(changed.items())),
    )  # fmt: skip
    assert not other.same_as(state)
    del row["sysctls"]  # a row of a version that kept none
    assert PortState.from_json(json.dumps(row)).sysctls == ()


def test_only_the_qdiscs_someone_added_are_told() -> None:
    assert added_qdiscs((FIXTURES / "qdisc.json").read_text()) == [
        "tbf 80aa: root",
        "ingress ffff: parent ffff:fff1",
    ]
    assert added_qdiscs((FIXTURES / "default-qdisc.json").read_text()) == []
    # The hint's `tc qdisc del dev IF ...`: a root takes its children along.
    assert qdisc_deletes(added_qdiscs((FIXTURES / "qdisc.json").read_text())) == [
        "root",
        "ingress",
    ]
    assert qdisc_deletes(["htb 1: root", "pfifo 10: parent 1:1"]) == ["root"]
    assert qdisc_deletes(["tbf 8002: parent :1"]) == ["parent :1"]


def test_the_kernels_link_local_address_does_not_make_states_differ() -> None:
    state = captured()
    without = dataclasses.replace(state, addresses=state.own_addresses)
    assert without.same_as(state)
    other_mtu = dataclasses.replace(state, mtu=1500)
    assert not other_mtu.same_as(state)
    fewer_routes = dataclasses.replace(state, routes=())
    assert not fewer_routes.same_as(state)


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("interface", "../../etc"),
        ("mtu", 10),
        ("up", "yes"),
        ("addresses", [{"family": "inet", "local": "10.0.0.1; reboot", "prefixlen": 24}]),
        ("addresses", [{"family": "inet", "local": "10.0.0.1", "prefixlen": 33}]),
        ("addresses", [{"family": "inet", "local": "10.0.0.1", "prefixlen": 8, "label": "a/b"}]),
        ("addresses", [{"family": "inet", "local": "10.0.0.1", "prefixlen": 8, "flags": ["x"]}]),
        ("routes", [{"dst": "10.0.0.0/8", "table": "--help"}]),
        ("routes", [{"dst": "10.0.0.0/8", "gateway": "10.0.0.0/8"}]),
        ("routes", [{"dst": "default", "nexthops": [{"dev": "../x", "gateway": "10.0.0.1"}]}]),
        ("routes", [{"dst": "default", "nexthops": [{"dev": "p0", "gateway": "10.0.0.1;x"}]}]),
        ("routes", [{"dst": "default", "nexthops": [{"dev": "p0", "weight": "1; reboot"}]}]),
        ("routes", [{"dst": "default", "nexthops": "p0"}]),
        ("sysctls", {"ipv4/conf/../../../kernel/x": "1"}),
        ("sysctls", {"ipv4/route/flush": "1"}),
        ("sysctls", {"ipv4/conf/rp_filter": "1\nmore"}),
        ("sysctls", {"ipv4/conf/rp_filter": 1}),
        ("sysctls", {"ipv6/conf/stable_secret": "::1"}),
        ("sysctls", ["ipv4/conf/rp_filter"]),
    ],
)
def test_an_edited_journal_row_is_refused_before_it_reaches_ip(key: str, value: object) -> None:
    data = json.loads(captured().to_json())
    data[key] = value
    with pytest.raises(RefusedError):
        PortState.from_json(json.dumps(data))


def test_a_port_is_a_journal_target_whose_value_names_the_same_port() -> None:
    target = parse_target("port:pt-cap0")
    assert (target.kind, target.interface) == (Kind.PORT, "pt-cap0")
    check_value(target, captured().to_json())
    with pytest.raises(RefusedError, match="another port"):
        check_value(parse_target("port:pt-other"), captured().to_json())
    with pytest.raises(RefusedError):
        parse_target("port:../x")


def test_what_ip_did_not_print_is_an_error() -> None:
    with pytest.raises(ValueError, match="no JSON"):
        read_state("pt-cap0", "Device not found", "[]", "[]")
    with pytest.raises(ValueError, match="no single pt-x"):
        read_state("pt-x", (FIXTURES / "link.json").read_text(), "[]", "[]")


def test_a_ports_journal_row_is_named_after_the_port_and_told_in_words() -> None:
    state = captured()
    assert (port_target("pt-cap0"), port_namespace("pt-cap0")) == ("port:pt-cap0", "pt-cap0-port")
    assert restored_words("port:pt-cap0", state.to_json() + "\n") == (
        "port pt-cap0 is back as it was: 192.168.71.50/24, 10.9.0.5/16, 2001:db8:7::5/64, "
        "7 route(s), MTU 1400, up"
    )
    assert restored_words("port:pt-cap1", captured("down-").to_json()) == (
        "port pt-cap1 is back as it was: no address, MTU 1500, down"
    )
    assert restored_words("/sys/class/net/eth0/mtu", "1500\n") is None
    with pytest.raises(RefusedError):
        port_namespace("../x")
