#!/usr/bin/env bash
# The lab demo: the R4S/R2S post's six-test matrix on the WAN (endpoint) and Br0 (bridge)
# paths of an emulated gigabit lab. Prints the table; writes out/seed-matrix.md.
# Extra arguments go to `wirespeed run` (e.g. --duration 3 for a quick look).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
mkdir -p out
exec .venv/bin/wirespeed run examples/seed-matrix.yaml --markdown out/seed-matrix.md "$@"
