"""What tuning may touch: the allow-list, the values, and the control interface."""

from __future__ import annotations

import pytest

from wirespeed.tune.targets import (
    Kind,
    RefusedError,
    check_control_interface,
    check_interface,
    check_value,
    default_route_interface,
    parse_offloads,
    parse_target,
)

HOSTILE_NAMES = [
    "eth0/../../x",
    "..",
    ".",
    "$(reboot)",
    "eth0;reboot",
    "eth0 x",
    'eth0"',
    "eth0'",
    "eth0\n",
    "`id`",
    "a" * 16,
    "",
]


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_hostile_interface_names_are_refused(name: str) -> None:
    with pytest.raises(RefusedError):
        check_interface(name)


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_hostile_interface_names_never_become_a_target(name: str) -> None:
    for path in (
        f"/sys/class/net/{name}/mtu",
        f"/sys/class/net/{name}/queues/rx-0/rps_cpus",
        f"ethtool:{name}:gro",
    ):
        with pytest.raises(RefusedError):
            parse_target(path)


@pytest.mark.parametrize(
    "path",
    [
        "/etc/passwd",
        "/proc/irq/27/../../sys/kernel/x",
        "/proc/irq/27/smp_affinity_list",
        "/proc/irq/x/smp_affinity",
        "/sys/class/net/eth0/queues/rx-0/../../../../../etc/passwd",
        "/sys/class/net/eth0/address",
        "/proc/sys/net/core/rps_sock_flow_entries",
        "ethtool:eth0:gro;reboot",
        "ethtool:eth0:$(reboot)",
    ],
)
def test_only_the_allow_listed_knobs_are_targets(path: str) -> None:
    with pytest.raises(RefusedError):
        parse_target(path)


def test_allowed_targets_parse() -> None:
    assert parse_target("/proc/irq/27/smp_affinity").irq == 27
    rps = parse_target("/sys/class/net/eth0/queues/rx-0/rps_cpus")
    assert (rps.kind, rps.interface) == (Kind.RPS, "eth0")
    assert parse_target("/sys/class/net/eth0.10/queues/tx-3/xps_cpus").kind is Kind.XPS
    assert parse_target("/sys/class/net/br-lan/mtu").interface == "br-lan"
    offload = parse_target("ethtool:eth0:gro")
    assert (offload.interface, offload.feature) == ("eth0", "generic-receive-offload")


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("/proc/irq/27/smp_affinity", "10;reboot"),
        ("/proc/irq/27/smp_affinity", "$(reboot)"),
        ("/proc/irq/27/smp_affinity", "10\n20"),
        ("/proc/irq/27/smp_affinity", "0x10"),
        ("/proc/irq/27/smp_affinity", "'10'"),
        ("/proc/irq/27/smp_affinity", ""),
        ("/sys/class/net/eth0/queues/rx-0/rps_cpus", "1F"),
        ("/sys/class/net/eth0/mtu", "67"),
        ("/sys/class/net/eth0/mtu", "65536"),
        ("/sys/class/net/eth0/mtu", "1500; reboot"),
        ("/sys/class/net/eth0/mtu", "\uff11\uff15\uff10\uff10"),
        ("ethtool:eth0:gro", "off; reboot"),
        ("ethtool:eth0:gro", "maybe"),
    ],
)
def test_hostile_values_are_refused(path: str, value: str) -> None:
    with pytest.raises(RefusedError):
        check_value(parse_target(path), value)


def test_good_values_pass_with_one_trailing_newline() -> None:
    assert check_value(parse_target("/proc/irq/27/smp_affinity"), "00000000,00000010\n")
    assert check_value(parse_target("/sys/class/net/eth0/mtu"), "9000")
    assert check_value(parse_target("ethtool:eth0:tso"), "off")


def test_mtu_and_offloads_of_the_control_interface_need_force() -> None:
    targets = [parse_target("/sys/class/net/eth0/mtu")]
    with pytest.raises(RefusedError, match="control connection"):
        check_control_interface(targets, "eth0", force=False)
    check_control_interface(targets, "eth0", force=True)
    check_control_interface(targets, "eth1", force=False)
    with pytest.raises(RefusedError):
        check_control_interface([parse_target("ethtool:eth0:gso")], "eth0", force=False)
    # Moving its interrupts between cores does not cut the connection.
    check_control_interface(
        [parse_target("/sys/class/net/eth0/queues/rx-0/rps_cpus")], "eth0", force=False
    )


def test_the_default_route_names_the_control_interface() -> None:
    text = '[{"dst":"default","gateway":"10.0.2.2","dev":"eth0","protocol":"dhcp","flags":[]}]'
    assert default_route_interface(text) == "eth0"
    assert default_route_interface("[]") is None
    assert default_route_interface("") is None


def test_ethtool_k_output_parses_with_fixed_features() -> None:
    text = (
        "Features for veth0:\n"
        "rx-checksumming: on\n"
        "tcp-segmentation-offload: on\n"
        "\ttx-tcp-segmentation: on\n"
        "generic-receive-offload: off\n"
        "tx-lockless: on [fixed]\n"
    )
    found = parse_offloads(text)
    assert found["generic-receive-offload"] == ("off", False)
    assert found["tx-lockless"] == ("on", True)
    assert found["tx-tcp-segmentation"] == ("on", False)
