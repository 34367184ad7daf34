"""The store's tables, in SQLAlchemy Core: portable between SQLite and PostgreSQL.

Portable means: no SQLite-only types, times as unix seconds in DOUBLE PRECISION (exact
round trip, no time-zone games), byte and packet counts in BIGINT (a 120 s test at 10 Gbit/s
moves 150 GB; iperf's datagram counters pass 2^31), structured values in JSON, and every
index named. Enumerations are stored as their string values, so adding a member needs no
migration. See docs/store.md.

Version history of the schema (SCHEMA_VERSION, kept in the meta table):
  1  first version.
"""

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
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("started_at", Double, nullable=False),
    Column("finished_at", Double),
    Column("status", String(16), nullable=False),
    Column("title", Text),
    Column("plan_path", Text),
    Column("plan_text", Text),
    Column("wirespeed_version", String(32), nullable=False),
    Column("argv", JSON(none_as_null=True), nullable=False),
    # RunInfo.provenance as given: {"hosts": {name: {kernel, os, iperf2, ...}}, "labs": ...}
    Column("provenance", JSON(none_as_null=True), nullable=False),
    Index("ix_runs_started_at", "started_at"),
)

trials = Table(
    "trials",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("run_id", Integer, ForeignKey("runs.id", ondelete="CASCADE"), nullable=False),
    Column("position", Integer, nullable=False),  # commit order within the run
    Column("key", String(255), nullable=False),  # Trial.key: test/path/variant/repetition
    Column("test_id", String(64), nullable=False),
    Column("test_name", Text, nullable=False),
    Column("tool", String(16), nullable=False),
    Column("protocol", String(8), nullable=False),  # also in spec, here to filter on
    Column("spec", JSON(none_as_null=True), nullable=False),
    Column("path_name", String(64), nullable=False),
    Column("path", JSON(none_as_null=True), nullable=False),  # topology, hosts, link
    Column("variant", String(64), nullable=False),
    Column("repetition", Integer, nullable=False),
    Column("status", String(16), nullable=False),
    Column("reason", Text),
    Column("started_at", Double, nullable=False),
    Column("finished_at", Double, nullable=False),
    # The Result's own header; has_result is false for a trial that failed before parsing.
    Column("has_result", Boolean, nullable=False),
    Column("result_tool", String(16)),
    Column("result_protocol", String(8)),
    Column("tool_version", String(64)),
    Index("ix_trials_run_position", "run_id", "position", unique=True),
    Index("ix_trials_run_key", "run_id", "key"),
    Index("ix_trials_test_path", "test_id", "path_name"),
)

# One row per flow direction of a trial (kind "direction", the sum of its streams) and
# one per stream (kind "stream", parent_id pointing at its direction's row).
results = Table(
    "results",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("trial_id", Integer, ForeignKey("trials.id", ondelete="CASCADE"), nullable=False),
    Column("parent_id", Integer, ForeignKey("results.id", ondelete="CASCADE")),
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
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("result_id", Integer, ForeignKey("results.id", ondelete="CASCADE"), nullable=False),
    Column("trial_id", Integer, ForeignKey("trials.id", ondelete="CASCADE"), nullable=False),
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
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("trial_id", Integer, ForeignKey("trials.id", ondelete="CASCADE"), nullable=False),
    Column("position", Integer, nullable=False),
    Column("host", String(255), nullable=False),
    Column("side", String(16), nullable=False),
    Column("argv", JSON(none_as_null=True), nullable=False),
    Column("format", String(16), nullable=False),
    Column("text", Text, nullable=False),
    Column("stderr", Text, nullable=False),
    Column("exit_status", Integer),
    Index("ix_raw_outputs_trial", "trial_id", "position"),
)

warnings = Table(
    "warnings",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("trial_id", Integer, ForeignKey("trials.id", ondelete="CASCADE"), nullable=False),
    Column("position", Integer, nullable=False),
    Column("kind", String(32), nullable=False),
    Column("message", Text, nullable=False),
    Index("ix_warnings_trial", "trial_id", "position"),
    Index("ix_warnings_kind", "kind"),
)
