"""The store's tables, in SQLAlchemy Core: the same schema on SQLite and PostgreSQL.

Portable means: no SQLite-only types, times as unix seconds in DOUBLE PRECISION (exact
round trip, no time-zone games), byte and packet counts in BIGINT (a 120 s test at 10 Gbit/s
moves 150 GB; iperf's datagram counters pass 2^31), structured values in JSON, and every
index named. Enumerations are stored as their string values, so adding a member needs no
migration. Names and texts that come from users, plans, devices or tools are unbounded
text: PostgreSQL enforces VARCHAR lengths, SQLite does not, and a run must not store on
one and fail on the other. See docs/store.md.

Version history of the schema (SCHEMA_VERSION, kept in the meta table):
  1  first version (with the monitors and findings tables, added before any release).
  2  a result row's intervals packed into its `intervals` column (packed_intervals.py)
     instead of one row each in an `intervals` table; migrations.py converts a version 1
     store when it is opened.
  3  runs.owner: the process writing the run (process_owner.py), so that `run --resume`
     refuses a run that is still going; NULL for runs stored before (migrations.py).
  4  measurements: what a benchmark's parser yielded (openssl speed, 7-zip ...), one row
     each; trials.bench: a benchmark's options. A traffic trial has neither: its
     measurements (goodput, loss ...) are derived from its results rows when read.
  5  runs.expectations: what the plan's `expect:` asked when the run began
     (expectations.encode), so that its reports judge with that and never re-read the
     plan text; NULL for runs stored before (their reports read the plan as they did).
  6  runs.origin (unique): the bundle run id (store/bundle.py) of a run brought in by
     `wirespeed import`, so that importing the same bundle again stores nothing; NULL for a run
     measured here, and for runs stored before.
  7  runs.settings: how the run measures its plan (run/settings.py), so that `run --resume`
     needs no command line; NULL for runs stored before (their stored command line says).
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
    LargeBinary,
    String,
    Table,
    Text,
)
from sqlalchemy.schema import SchemaItem

from wirespeed.store.columns import FreeText, Id, metadata

SCHEMA_VERSION = 7


def _of_a_trial(name: str, *items: SchemaItem) -> Table:
    """A table of one kind of a trial's rows, in the trial's own order: each row's id, its
    trial's (the row goes with it) and its position, indexed by trial and position."""
    return Table(
        name,
        metadata,
        Column("id", Id, primary_key=True, autoincrement=True),
        Column("trial_id", Id, ForeignKey("trials.id", ondelete="CASCADE"), nullable=False),
        Column("position", Integer, nullable=False),
        *items,
        Index(f"ix_{name}_trial", "trial_id", "position"),
    )


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
    # "hostname/boot_id/pid/starttime" of the process that writes the run now (begun or
    # resumed it): while it lives, no other process may add trials to the run.
    Column("owner", FreeText),
    # expectations.encode() of the plan's `expect:`; NULL: stored before version 5.
    Column("expectations", JSON(none_as_null=True)),
    # A bundle run's id ("sha256:..."), for a run imported from a bundle; NULL otherwise.
    Column("origin", FreeText),
    # RunSettings.to_json() (run/settings.py); NULL: stored before version 7, or imported.
    Column("settings", JSON(none_as_null=True)),
    Index("ix_runs_started_at", "started_at"),
    # Unique: two imports of one bundle at once store it once (NULLs are not equal).
    Index("ix_runs_origin", "origin", unique=True),
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
    # A benchmark's options ({"options": {...}, "timeout": s}); NULL for a traffic test,
    # whose settings are its spec. `protocol` is "" for a benchmark.
    Column("bench", JSON(none_as_null=True)),
    Index("ix_trials_run_position", "run_id", "position", unique=True),
    Index("ix_trials_run_key", "run_id", "key"),
    Index("ix_trials_test_path", "test_id", "path_name"),
)

# One row per flow direction of a trial (kind "direction", the sum of its streams) and
# one per stream (kind "stream", parent_id pointing at its direction's row), each with
# its interval series packed in one value: a run holds ten times more intervals than
# results, and reading them as rows of their own was most of the time of loading a run.
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
    Column("intervals", LargeBinary),  # packed_intervals.py; NULL: no interval series
    Index("ix_results_trial", "trial_id", "position"),
    Index("ix_results_parent", "parent_id"),
)

# What a benchmark measured: one row per Measurement of its result, in the parser's order.
measurements = _of_a_trial(
    "measurements",
    Column("name", FreeText, nullable=False),
    Column("unit", FreeText, nullable=False),
    Column("better", String(8), nullable=False),
    Column("value", Double, nullable=False),
    Column("labels", JSON(none_as_null=True), nullable=False),  # [[key, value], ...]
    Index("ix_measurements_name", "name"),
)

raw_outputs = _of_a_trial(
    "raw_outputs",
    Column("host", FreeText, nullable=False),
    Column("side", String(16), nullable=False),
    Column("argv", JSON(none_as_null=True), nullable=False),
    Column("format", Text, nullable=False),
    Column("text", FreeText, nullable=False),
    Column("stderr", FreeText, nullable=False),
    Column("exit_status", Integer),
)

# What a sampler saw on a host during a trial: the raw stream (parsing can be redone,
# the per-core series are rebuilt from it) and its summary as versioned JSON.
monitors = _of_a_trial(
    "monitors",
    Column("host", FreeText, nullable=False),
    Column("role", String(16), nullable=False),
    Column("interval", Double, nullable=False),
    Column("partial", Boolean, nullable=False),
    Column("reason", FreeText),
    Column("summary", FreeText, nullable=False),
    Column("raw", FreeText, nullable=False),
)

# Verdicts on a trial (analysis/findings.py), kept as they were judged at the time.
findings = _of_a_trial(
    "findings",
    Column("kind", String(32), nullable=False),
    Column("flow", String(8)),
    Column("message", FreeText, nullable=False),
)

warnings = _of_a_trial(
    "warnings",
    Column("kind", String(32), nullable=False),
    Column("message", FreeText, nullable=False),
    Index("ix_warnings_kind", "kind"),
)

# Every table is part of the schema whoever imports the store first: the tuning journal
# and the soak tables live in modules of their own, which add their tables to `metadata`
# when imported.
from wirespeed.store import journal_table, soak_table  # noqa: E402, F401
