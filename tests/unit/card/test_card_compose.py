"""A card's plan made for its bench (card/compose.py): the hosts probed only when the
card is to run, what it leaves out said, and a card with no part left refused."""

from __future__ import annotations

from typing import Any

import pytest

from wirespeed.card.compose import compose_card, something_left
from wirespeed.card.parts import OPENVPN_PATH, WIREGUARD_PATH
from wirespeed.card.plan_text import CardOptions
from wirespeed.card.target import Ends, LabOptions, card_bench
from wirespeed.errors import UsageError
from wirespeed.hosts.ssh_connection import SshSettings
from wirespeed.plan import Plan

LAB = card_bench("lab:nat:fe", LabOptions(), Ends())
# A quick card of throughput alone: the rest left out as --skip leaves it.
BY_SKIP = {
    part: f"{part}: left out (--skip)" for part in ("forwarding", "latency", "vpn", "compute")
}


class Reach:
    """How the hosts are reached, each time it is asked noted."""

    def __init__(self) -> None:
        self.asked = 0

    def __call__(self) -> SshSettings:
        self.asked += 1
        return SshSettings()


def test_a_card_that_is_only_printed_probes_no_host() -> None:
    warned: list[str] = []
    plan = compose_card(
        LAB, CardOptions(skipped=BY_SKIP), {}, tuned=False, expect=None, ssh=None, db=None,
        warn=warned.append, say=warned.append,
    )  # fmt: skip
    assert [t.id for t in plan.tests] == ["tcp-up", "tcp-down", "tcp-both", "udp"]
    assert warned == [f"skipped: {reason}" for reason in BY_SKIP.values()]


def test_a_card_to_run_probes_its_hosts_and_leaves_out_what_they_lack(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    reach = Reach()
    probed: list[tuple[object, ...]] = []

    def probe(bench: object, plan: Plan, ssh: SshSettings, db: str | None, **_: object) -> Any:
        probed.append((bench, [t.id for t in plan.tests], ssh, db))
        return {"7z": "7z: no 7-zip on the device"}, ("a device",), None

    monkeypatch.setattr("wirespeed.card.probe.probe", probe)
    warned: list[str] = []
    with_compute = {k: v for k, v in BY_SKIP.items() if k != "compute"}
    plan = compose_card(
        LAB, CardOptions(skipped=with_compute), {"--duration": "1"}, tuned=False, expect=None,
        ssh=reach, db="runs.db", warn=warned.append, say=lambda _: None,
    )  # fmt: skip
    assert reach.asked == 1
    # Asked with the plan as it stood, from where the run will reach the device.
    throughput = ["tcp-up", "tcp-down", "tcp-both", "udp"]
    assert probed == [(LAB, [*throughput, "crypto", "7z"], SshSettings(), "runs.db")]
    assert [t.id for t in plan.tests] == [*throughput, "crypto"]
    assert warned[-1] == "skipped: 7z: no 7-zip on the device"


def test_a_card_with_every_part_left_out_is_refused_with_the_skips_named() -> None:
    every = {**BY_SKIP, "throughput": "throughput: left out (--skip)"}
    with pytest.raises(UsageError, match="no part left to measure: --skip ") as raised:
        compose_card(
            LAB, CardOptions(skipped=every), {}, tuned=False, expect=None, ssh=None, db=None,
            warn=lambda _: None, say=lambda _: None,
        )  # fmt: skip
    assert "--skip throughput,forwarding,latency,vpn,compute leaves" in str(raised.value)
    # The tunnels' part is gone when each of its tunnels is, whatever left them out.
    tunnels_missing = {
        **{k: v for k, v in every.items() if k != "vpn"},
        WIREGUARD_PATH: "WireGuard: no wireguard-go",
        OPENVPN_PATH: "OpenVPN: no openvpn",
    }
    with pytest.raises(UsageError, match="no part left to measure: --skip throughput,"):
        something_left(tunnels_missing)
    something_left({k: v for k, v in every.items() if k != "vpn"})  # the tunnels are left
