"""Schema version 1 as it was, for the migration tests: the same tables as
src/wirespeed/store/schema.py had, with one row per interval in `intervals`. Kept here
so that a version 1 store can be made on any backend after the code moved on."""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    Double,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
)

from wirespeed.store.columns import FreeText, Id

SCHEMA_VERSION = 1

metadata = MetaData()

meta = Table(
    "meta",
    metadata,
    Column("key", String(64), primary_key=True),
    Column("value", Text, nullable=False),
)

runs = Table(
    "runs",
    metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("started_at", Double, nullable=False),
    Column("finished_at", Double),
    Column("status", String(16), nullable=False),
    Column("title", FreeText),
    Column("plan_path", FreeText),
    Column("plan_text", FreeText),
    Column("wirespeed_version", Text, nullable=False),
    Column("argv", JSON(none_as_null=True), nullable=False),
    # RunInfo.provenance as given: {"hosts": {name: {kernel, os, iperf2, ...}}, "labs": ...}
    Column("provenance", JSON(none_as_null=True), nullable=False),
    Index("ix_runs_started_at", "started_at"),
)

trials = Table(
    "trials",
    metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("run_id", Id, ForeignKey("runs.id", ondelete="CASCADE"), nullable=False),
    Column("position", Integer, nullable=False),  # commit order within the run
    Column("key", FreeText, nullable=False),  # Trial.key: test/path/variant/repetition
    Column("test_id", FreeText, nullable=False),
    Column("test_name", FreeText, nullable=False),
    Column("tool", String(16), nullable=False),
    Column("protocol", String(8), nullable=False),  # also in spec, here to filter on
    Column("spec", JSON(none_as_null=True), nullable=False),
    Column("path_name", FreeText, nullable=False),
    Column("path", JSON(none_as_null=True), nullable=False),  # topology, hosts, link
    Column("variant", FreeText, nullable=False),
    Column("repetition", Integer, nullable=False),
    Column("status", String(16), nullable=False),
    Column("reason", FreeText),
    Column("started_at", Double, nullable=False),
    Column("finished_at", Double, nullable=False),
    # The Result's own header; has_result is false for a trial that failed before parsing.
    Column("has_result", Boolean, nullable=False),
    Column("result_tool", String(16)),
    Column("result_protocol", String(8)),
    Column("tool_version", FreeText),
    Index("ix_trials_run_position", "run_id", "position", unique=True),
    Index("ix_trials_run_key", "run_id", "key"),
    Index("ix_trials_test_path", "test_id", "path_name"),
)

# One row per flow direction of a trial (kind "direction", the sum of its streams) and
# one per stream (kind "stream", parent_id pointing at its direction's row).
results = Table(
    "results",
    metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("trial_id", Id, ForeignKey("trials.id", ondelete="CASCADE"), nullable=False),
    Column("parent_id", Id, ForeignKey("results.id", ondelete="CASCADE")),
    Column("kind", String(16), nullable=False),
    Column("position", Integer, nullable=False),
    Column("flow", String(8), nullable=False),
    Column("stream_id", Integer),  # the tool's stream id; NULL on direction rows
    Column("sent_bytes", BigInteger),
    Column("sent_seconds", Double),
    Column("sent_bps", Double),
    Column("received_bytes", BigInteger),
    Column("received_seconds", Double),
    Column("received_bps", Double),
    # Derived (receiver side where known), stored for queries; never read back.
    Column("goodput_bps", Double),
    Column("retransmits", BigInteger),
    Column("has_udp", Boolean, nullable=False),
    Column("jitter_ms", Double),
    Column("lost", BigInteger),
    Column("packets", BigInteger),
    Column("loss_percent", Double),  # derived from lost/packets, never the tool's 2 digits
    Column("out_of_order", BigInteger),
    Index("ix_results_trial", "trial_id", "position"),
    Index("ix_results_parent", "parent_id"),
)

intervals = Table(
    "intervals",
    metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("result_id", Id, ForeignKey("results.id", ondelete="CASCADE"), nullable=False),
    Column("trial_id", Id, ForeignKey("trials.id", ondelete="CASCADE"), nullable=False),
    Column("position", Integer, nullable=False),
    Column("start", Double, nullable=False),
    Column("end", Double, nullable=False),
    Column("bytes", BigInteger, nullable=False),
    Column("bps", Double, nullable=False),
    Column("retransmits", BigInteger),
    Column("jitter_ms", Double),
    Column("lost", BigInteger),
    Column("packets", BigInteger),
    Index("ix_intervals_result", "result_id", "position"),
    Index("ix_intervals_trial", "trial_id"),
)

raw_outputs = Table(
    "raw_outputs",
    metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("trial_id", Id, ForeignKey("trials.id", ondelete="CASCADE"), nullable=False),
    Column("position", Integer, nullable=False),
    Column("host", FreeText, nullable=False),
    Column("side", String(16), nullable=False),
    Column("argv", JSON(none_as_null=True), nullable=False),
    Column("format", Text, nullable=False),
    Column("text", FreeText, nullable=False),
    Column("stderr", FreeText, nullable=False),
    Column("exit_status", Integer),
    Index("ix_raw_outputs_trial", "trial_id", "position"),
)

# What a sampler saw on a host during a trial: the raw stream (parsing can be redone,
# the per-core series are rebuilt from it) and its summary as versioned JSON.
monitors = Table(
    "monitors",
    metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("trial_id", Id, ForeignKey("trials.id", ondelete="CASCADE"), nullable=False),
    Column("position", Integer, nullable=False),
    Column("host", FreeText, nullable=False),
    Column("role", String(16), nullable=False),
    Column("interval", Double, nullable=False),
    Column("partial", Boolean, nullable=False),
    Column("reason", FreeText),
    Column("summary", FreeText, nullable=False),
    Column("raw", FreeText, nullable=False),
    Index("ix_monitors_trial", "trial_id", "position"),
)

# Verdicts on a trial (analysis/findings.py), kept as they were judged at the time.
findings = Table(
    "findings",
    metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("trial_id", Id, ForeignKey("trials.id", ondelete="CASCADE"), nullable=False),
    Column("position", Integer, nullable=False),
    Column("kind", String(32), nullable=False),
    Column("flow", String(8)),
    Column("message", FreeText, nullable=False),
    Index("ix_findings_trial", "trial_id", "position"),
)

warnings = Table(
    "warnings",
    metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("trial_id", Id, ForeignKey("trials.id", ondelete="CASCADE"), nullable=False),
    Column("position", Integer, nullable=False),
    Column("kind", String(32), nullable=False),
    Column("message", FreeText, nullable=False),
    Index("ix_warnings_trial", "trial_id", "position"),
    Index("ix_warnings_kind", "kind"),
)
