"""Namespace names mark the project's labs; a record brings a lab's spec back."""

from __future__ import annotations

from pathlib import Path

import pytest

from wirespeed.errors import UsageError
from wirespeed.lab import record
from wirespeed.lab.lab import LabInfo
from wirespeed.lab.links import parse_link
from wirespeed.lab.naming import check_lab_name, namespace_name, parse_namespace
from wirespeed.lab.status import parse_ip_addr_json
from wirespeed.lab.topology import Infra
from wirespeed.model import Role, Topology


def test_namespace_names_round_trip_even_with_dashes_in_the_lab_name() -> None:
    assert namespace_name("r4s-test", Role.DUT) == "wirespeed-r4s-test-dut"
    assert parse_namespace("wirespeed-r4s-test-dut") == ("r4s-test", Role.DUT)
    assert parse_namespace("wirespeed-bridge-client") == ("bridge", Role.CLIENT)
    assert namespace_name("e-1", Infra.SWITCH) == "wirespeed-e-1-switch"
    assert parse_namespace("wirespeed-e-1-switch") == ("e-1", Infra.SWITCH)


def test_an_endpoint_lab_is_complete_only_with_its_switch() -> None:
    namespaces = ("wirespeed-e-client", "wirespeed-e-dut")
    link = parse_link("gbe")
    partial = LabInfo("e", namespaces, Topology.ENDPOINT, link, 1500)
    assert not partial.complete
    whole = LabInfo("e", (*namespaces, "wirespeed-e-switch"), Topology.ENDPOINT, link, 1500)
    assert whole.complete


def test_other_namespaces_are_not_ours() -> None:
    assert parse_namespace("docker-1234") is None
    assert parse_namespace("wirespeed-bridge-router") is None
    assert parse_namespace("wirespeed--dut") is None


@pytest.mark.parametrize("bad", ["", "Bridge", "a b", "-x", "x-", "a/b", "x" * 41])
def test_bad_lab_names_are_refused(bad: str) -> None:
    with pytest.raises(UsageError):
        check_lab_name(bad)


def test_a_record_survives_a_round_trip(tmp_path: Path) -> None:
    saved = record.LabRecord("r4s", Topology.NAT, parse_link("fe", 1500), 512)
    record.save(saved, str(tmp_path))
    assert record.load("r4s", str(tmp_path)) == saved
    record.remove("r4s", str(tmp_path))
    record.remove("r4s", str(tmp_path))
    assert record.load("r4s", str(tmp_path)) is None


def test_an_unreadable_record_is_none_not_a_crash() -> None:
    assert record.from_json("{") is None
    assert record.from_json('{"version": 99}') is None
    unshaped = record.to_json(record.LabRecord("u", Topology.BRIDGE, parse_link("unshaped"), 1500))
    assert record.from_json(unshaped) is not None


# `ip -j addr show` in the DUT namespace of a bridge lab, as iproute2 6.1 printed it.
IP_ADDR_JSON = (
    '[{"ifindex":1,"ifname":"lo","flags":["LOOPBACK","UP","LOWER_UP"],"mtu":65536,"qdisc":"no'
    'queue","operstate":"UNKNOWN","group":"default","txqlen":1000,"link_type":"loopback","add'
    'ress":"00:00:00:00:00:00","broadcast":"00:00:00:00:00:00","addr_info":[{"family":"inet",'
    '"local":"127.0.0.1","prefixlen":8,"scope":"host","label":"lo","valid_life_time":42949672'
    '95,"preferred_life_time":4294967295},{"family":"inet6","local":"::1","prefixlen":128,"sc'
    'ope":"host","valid_life_time":4294967295,"preferred_life_time":4294967295}]},{"ifindex":'
    '2,"link_index":2,"ifname":"lan","flags":["BROADCAST","MULTICAST","UP","LOWER_UP"],"mtu":'
    '1500,"qdisc":"noqueue","master":"br0","operstate":"UP","group":"default","txqlen":1000,"'
    'link_type":"ether","address":"76:09:65:55:14:8f","broadcast":"ff:ff:ff:ff:ff:ff","link_n'
    'etnsid":0,"addr_info":[{"family":"inet6","local":"fe80::7409:65ff:fe55:148f","prefixlen"'
    ':64,"scope":"link","tentative":true,"valid_life_time":4294967295,"preferred_life_time":4'
    '294967295}]},{"ifindex":3,"link_index":2,"ifname":"wan","flags":["BROADCAST","MULTICAST"'
    ',"UP","LOWER_UP"],"mtu":1500,"qdisc":"noqueue","master":"br0","operstate":"UP","group":"'
    'default","txqlen":1000,"link_type":"ether","address":"56:64:f9:b0:4c:04","broadcast":"ff'
    ':ff:ff:ff:ff:ff","link_netnsid":1,"addr_info":[{"family":"inet6","local":"fe80::5464:f9f'
    'f:feb0:4c04","prefixlen":64,"scope":"link","tentative":true,"valid_life_time":4294967295'
    ',"preferred_life_time":4294967295}]},{"ifindex":4,"ifname":"br0","flags":["BROADCAST","M'
    'ULTICAST","UP","LOWER_UP"],"mtu":1500,"qdisc":"noqueue","operstate":"UP","group":"defaul'
    't","txqlen":1000,"link_type":"ether","address":"56:64:f9:b0:4c:04","broadcast":"ff:ff:ff'
    ':ff:ff:ff","addr_info":[{"family":"inet","local":"198.18.1.1","prefixlen":24,"scope":"gl'
    'obal","label":"br0","valid_life_time":4294967295,"preferred_life_time":4294967295},{"fam'
    'ily":"inet6","local":"fe80::5464:f9ff:feb0:4c04","prefixlen":64,"scope":"link","tentativ'
    'e":true,"valid_life_time":4294967295,"preferred_life_time":4294967295}]}]'
)


def test_ip_addr_json_gives_ipv4_per_interface_without_loopback() -> None:
    assert parse_ip_addr_json(IP_ADDR_JSON) == {"lan": (), "wan": (), "br0": ("198.18.1.1/24",)}
    assert parse_ip_addr_json("") == {}
    assert parse_ip_addr_json("Cannot open network namespace") == {}
