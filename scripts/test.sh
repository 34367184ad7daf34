#!/usr/bin/env bash
# The test suite: lint, types, then unit and integration tests (integration needs root:
# it builds network namespaces and runs real iperf inside them, and removes them after).
#
# scripts/test.sh --fast [PYTEST ARGS]: the loop to run before every commit: lint, types,
# the import contract and the unit tests that start no real program, on both cores
# (pytest-xdist). No root needed once the environment exists; about a minute here.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--fast" ]; then
  shift
  [ -x .venv/bin/pytest ] || scripts/bootstrap.sh
  .venv/bin/ruff check src tests benchmarks
  .venv/bin/ruff format --check src tests benchmarks
  .venv/bin/mypy
  .venv/bin/lint-imports --no-logo
  exec .venv/bin/pytest --fast -n 2 -p no:cacheprovider tests/unit "$@"
fi
scripts/bootstrap.sh
# Programs only the tests use: the HTML report's test opens it in a real browser, the
# store's test of `sudo wirespeed` runs the real sudo, and the completion scripts and the
# man page are loaded in the shells and man that read them, and the ad-hoc run's test
# watches it in a real terminal (tmux).
test_packages=()
command -v chromium >/dev/null 2>&1 || test_packages+=(chromium)
command -v sudo >/dev/null 2>&1 || test_packages+=(sudo)
command -v man >/dev/null 2>&1 || test_packages+=(man-db)
command -v zsh >/dev/null 2>&1 || test_packages+=(zsh)
command -v fish >/dev/null 2>&1 || test_packages+=(fish)
command -v tmux >/dev/null 2>&1 || test_packages+=(tmux)
command -v tcpreplay >/dev/null 2>&1 || test_packages+=(tcpreplay)
if [ "${#test_packages[@]}" -gt 0 ]; then
  echo "test: installing ${test_packages[*]} for the tests" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${test_packages[@]}" >/tmp/wirespeed-test-apt.log 2>&1 || {
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
      --no-install-recommends "${test_packages[@]}" >/tmp/wirespeed-test-apt.log 2>&1
  } || { cat /tmp/wirespeed-test-apt.log >&2; exit 1; }
fi
.venv/bin/ruff check src tests benchmarks
.venv/bin/ruff format --check src tests benchmarks
.venv/bin/mypy
# The import contract: layers import downward only (pyproject.toml, [tool.importlinter]).
.venv/bin/lint-imports --no-logo
# The wheel as people install it: `uv tool install` in a throwaway directory, then used.
scripts/wheel-check.sh
# The tests' own data directory: no test (nor a wirespeed it starts) writes the per-user
# store or spool of whoever runs the suite.
XDG_DATA_HOME=$(mktemp -d /tmp/wirespeed-tests-data.XXXXXX)
export XDG_DATA_HOME
cleanup() { rm -rf "$XDG_DATA_HOME"; }
trap cleanup EXIT
# A throwaway PostgreSQL on 127.0.0.1 for the store's tests on both backends (or your own).
if [ -z "${WIRESPEED_TEST_POSTGRES_URL:-}" ]; then
  WIRESPEED_TEST_POSTGRES_URL=$(scripts/postgres-for-tests.sh)
  export WIRESPEED_TEST_POSTGRES_URL
  trap 'scripts/postgres-for-tests.sh stop; cleanup' EXIT
fi
# With no test named, the unit tests run first (two at a time), then the integration and
# browser tests one at a time, and beside them the tests that mostly wait in real time:
# the soak tests and the soak through a router that freezes (a probe every 10 ms,
# outages of seconds). They cost little CPU, and every test must pass on a busy machine
# anyway. (Not the SSH device's faults, which wait out timeouts too but send gigabit
# iperf3 first: beside them a fast Ethernet lab's TCP fell 5 % short.) Their output
# follows the others'; every part runs even if one failed.
beside=(tests/integration/soak tests/integration/bench/test_bench_soak_freeze.py)
named=0
previous=
for arg in "$@"; do
  case "$previous" in
    -p | -k | -m | -o | -c | -n | --durations | --maxfail | --deselect | --ignore | --rootdir) previous=; continue ;;
  esac
  case "$arg" in
    -*) previous=$arg ;;
    *) named=1 ;;
  esac
done
if [ "$named" = 1 ]; then
  .venv/bin/pytest "$@"
  exit
fi
unit_status=0
# The unit tests on both cores (pytest-xdist): each makes its own files, stores and
# PostgreSQL databases, and none asserts a figure a busy machine could miss. In two
# parts, the same tests as one: first the fast loop's, with its guard (a test that
# starts a program without the `process` mark fails, as in `--fast`), so that CI on a
# clean clone holds every commit to it; then the tests the fast loop leaves out.
.venv/bin/pytest --fast -n 2 tests/unit "$@" || unit_status=$?
.venv/bin/pytest -n 2 -m "process or root or slow or browser" tests/unit "$@" ||
  { left_out_status=$?; [ "$unit_status" != 0 ] || unit_status=$left_out_status; }
beside_log=$(mktemp /tmp/wirespeed-tests-beside.XXXXXX)
# A job started with & in a script ignores SIGINT, and so would every wirespeed it starts:
# the Ctrl-C tests would send it in vain. `trap - INT` gives the job the default back.
(trap - INT QUIT; exec .venv/bin/pytest "${beside[@]}" "$@") >"$beside_log" 2>&1 &
beside_pid=$!
status=0
.venv/bin/pytest tests/integration tests/browser "${beside[@]/#/--ignore=}" "$@" || status=$?
beside_status=0
wait "$beside_pid" || beside_status=$?
echo "--- the tests that wait (run beside the others) ---"
cat "$beside_log"
rm -f "$beside_log"
for part in "$unit_status" "$status" "$beside_status"; do
  [ "$part" = 0 ] || exit "$part"
done
