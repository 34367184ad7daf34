"""A test's settings: its kind's `options:` as the kind's own frozen model, validated once
when the plan is assembled, and read back the same from a store written before they
were."""

from __future__ import annotations

import lzma
from pathlib import Path

import pytest
from pydantic import BaseModel

from wirespeed.model import BenchSpec, TestCase, TestSpec, Tool
from wirespeed.plan import parse_plan
from wirespeed.plan.forwarding import ForwardingOptions
from wirespeed.store import Store
from wirespeed.tools import bounceback, openssl

# Written by the version before tests had settings (tests/fixtures/cards/README.md): a
# card's forwarding searches, openssl and 7-zip, kept as their options' mappings.
CARDS = Path(__file__).parents[2] / "fixtures" / "cards" / "runs.db.xz"

PLAN = """
lab: {link: fe}
paths: [{name: R, topology: router}]
tests:
  - id: search
    tool: forwarding
    options: {frame_sizes: [64, 1518], goals: [{name: NDR, loss: 0}]}
  - id: rtt
    tool: bounceback
    options: {duration: 2}
  - id: tcp
    tool: iperf3
"""


def test_the_plan_gives_each_test_its_kinds_settings_validated_once() -> None:
    plan = parse_plan(PLAN, source="<test>")
    tests = {test.id: test for test in plan.tests}
    search = tests["search"].settings_as(ForwardingOptions)
    assert search.frame_sizes == [64, 1518]
    assert [goal.name for goal in search.goals] == ["NDR"]
    # The model the plan validated is the one the test keeps: asking again is no new one.
    assert tests["search"].settings is search
    assert tests["rtt"].settings_as(bounceback.Options).duration == 2
    assert tests["tcp"].settings is None  # its settings are the test's own keys


def test_settings_of_another_kind_are_refused() -> None:
    plan = parse_plan(PLAN, source="<test>")
    rtt = next(test for test in plan.tests if test.id == "rtt")
    with pytest.raises(TypeError, match="'rtt' \\(bounceback\\) has no ForwardingOptions"):
        rtt.settings_as(ForwardingOptions)


def test_options_given_as_the_store_keeps_them_are_validated_at_first_use() -> None:
    stored = BenchSpec(options=(("ciphers", ("aes-256-gcm",)), ("evp", "with")))
    test = TestCase(id="t", name="t", tool=Tool.OPENSSL, spec=TestSpec()).with_options(stored)
    settings = test.settings_as(openssl.Options)
    assert settings.ciphers == ["aes-256-gcm"] and settings.evp == "with"
    assert settings.blocks == [1024, 8192]  # the model's default, as the plan's would be
    assert test.settings is settings


def test_a_store_written_before_settings_reads_back_each_tests_settings(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    db.write_bytes(lzma.decompress(CARDS.read_bytes()))
    store = Store.open(str(db), read_only=True)
    try:
        record = store.load_run(1, intervals=False, outputs=False, commands=False)
    finally:
        store.close()
    tests = {outcome.trial.test for outcome in record.outcomes}
    kinds = {test.tool for test in tests if test.settings is not None}
    assert {Tool.FORWARDING, Tool.OPENSSL, Tool.SEVENZIP} <= kinds
    for test in tests:
        if test.options is None:
            assert test.settings is None
            continue
        assert isinstance(test.settings, BaseModel)
        # The options the store kept, now as the kind's model; what the model has come to
        # hold since (a search's cpus and senders) takes its default.
        validated = test.settings.model_dump(mode="json")
        assert all(validated[key] == value for key, value in test.options.as_dict().items())
    searches = [test for test in tests if test.tool is Tool.FORWARDING]
    assert {
        size for test in searches for size in test.settings_as(ForwardingOptions).frame_sizes
    } == {
        64,
        1518,
    }
