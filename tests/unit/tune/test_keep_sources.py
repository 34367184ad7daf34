"""What `tune keep` keeps, from where (tune/keep_sources.py): the plan of a captured
board's facts, a stored run's variant on given interfaces or on the device's NICs, and
the init system a boot script is installed for, asked of the device."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

import pytest
from tune_helpers import BOARDS, TreeHost

from wirespeed.errors import UsageError
from wirespeed.hosts.base import Completed
from wirespeed.store import RunInfo, Store
from wirespeed.tune.keep import KeepError
from wirespeed.tune.keep_sources import (
    init_system,
    kept_of_facts,
    kept_of_variant,
    variant_state,
)
from wirespeed.tune.keep_systems import System


class ProbedTree(TreeHost):
    """A device's tree whose `test -e` / `test -d` look in the tree, each one noted."""

    def __init__(self, root: Path) -> None:
        super().__init__(root, name="router")
        self.asked: list[tuple[str, ...]] = []

    def run(self, argv: Sequence[str], *, timeout: float = 30.0) -> Completed:
        self.asked.append(tuple(argv))
        assert argv[0] == "test" and argv[1] in ("-e", "-d")
        path = self.root / argv[2].lstrip("/")
        there = path.exists() if argv[1] == "-e" else path.is_dir()
        return Completed(tuple(argv), 0 if there else 1, "", "")


def _run_with_variants(db: Path, variants: dict[str, dict[str, object]]) -> int:
    with Store.open(str(db)) as store:
        return store.begin_run(
            RunInfo(title="A/B", started_at=time.time(), provenance={"variants": variants})
        )


def test_the_plan_of_a_boards_facts_is_kept_on_its_nics() -> None:
    kept = kept_of_facts(str(BOARDS / "r4s"), None)
    assert kept.source == f"tree {BOARDS / 'r4s'}"
    assert kept.interfaces == ("eth0", "eth1")


def test_a_board_whose_plan_sets_nothing_has_nothing_to_keep() -> None:
    root = str(BOARDS / "neo2")
    with pytest.raises(KeepError, match="nothing to keep for tree") as raised:
        kept_of_facts(root, None)
    assert raised.value.hint == f"wirespeed tune suggest --root {root} says why"


def test_a_variant_goes_on_the_interfaces_given(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    run = _run_with_variants(db, {"default": {}, "a72": {"rps": "30", "mtu": 1500}})
    kept = kept_of_variant(str(db), run, "a72", ["eth0, eth1"], root=None, host=None)
    assert kept.source == f"run {run}, variant a72"
    assert kept.interfaces == ("eth0", "eth1")


def test_a_variant_without_interfaces_goes_on_the_devices_nics(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    run = _run_with_variants(db, {"spread": {"rps": "spread"}})
    on_tree = kept_of_variant(str(db), run, "spread", [], root=str(BOARDS / "r4s"), host=None)
    assert on_tree.interfaces == ("eth0", "eth1")  # not br-lan, a bridge
    with pytest.raises(UsageError, match="which interfaces should variant spread go on"):
        kept_of_variant(str(db), run, "spread", [], root=None, host=None)


def test_a_variant_the_run_did_not_record_is_refused_with_the_ones_it_did(
    tmp_path: Path,
) -> None:
    db = tmp_path / "runs.db"
    run = _run_with_variants(db, {"a72": {"rps": "30"}, "cpu": {"cpus_online": [0, 4]}})
    assert variant_state(str(db), run, "a72") == {"rps": "30"}
    with pytest.raises(UsageError, match="has no variant 'nope'") as raised:
        variant_state(str(db), run, "nope")
    assert raised.value.hint == "its variants: a72, cpu"
    plain = _run_with_variants(db, {})
    with pytest.raises(UsageError, match=f"run {plain} recorded no variants"):
        variant_state(str(db), plain, "a72")


def test_the_init_system_is_the_devices_unless_given(tmp_path: Path) -> None:
    openwrt = tmp_path / "openwrt"
    (openwrt / "etc").mkdir(parents=True)
    (openwrt / "etc" / "rc.common").write_text("#!/bin/sh\n")
    host = ProbedTree(openwrt)
    assert init_system(host, "") == System.OPENWRT
    assert host.asked == [("test", "-e", "/etc/rc.common")]

    systemd = tmp_path / "systemd"
    (systemd / "run" / "systemd" / "system").mkdir(parents=True)
    host = ProbedTree(tmp_path)
    assert init_system(host, "/systemd") == System.SYSTEMD
    assert host.asked[-1] == ("test", "-d", "/systemd/run/systemd/system")

    given = ProbedTree(tmp_path)
    assert init_system(given, "", "openwrt") == System.OPENWRT
    assert given.asked == []  # given: the device is not asked

    with pytest.raises(UsageError, match="cannot tell the init system of router under /none"):
        init_system(ProbedTree(tmp_path), "/none")
