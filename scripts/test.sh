#!/usr/bin/env bash
# The test suite: lint, types, then unit and integration tests (integration needs root:
# it builds network namespaces and runs real iperf inside them, and removes them after).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
.venv/bin/ruff check src tests benchmarks
.venv/bin/ruff format --check src tests benchmarks
.venv/bin/mypy
exec .venv/bin/pytest "$@"
