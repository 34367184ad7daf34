#!/usr/bin/env bash
# wirespeed installed as people install it: the wheel built by uv, then `uv tool install`ed
# into a throwaway tool directory (without the postgres extra, as a plain install is) and
# used from outside the source tree; then the same wheel with the extra. scripts/test.sh
# runs it (about 15 s).
#
#   scripts/wheel-check.sh          uv tool install
#   scripts/wheel-check.sh --pipx   also pipx install (Debian's pipx; pip takes ~45 s more)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
uv="$repo/.tools/uv/bin/uv"
export UV_PYTHON_DOWNLOADS=never  # the machine's Python, as bootstrap.sh uses

work=$(mktemp -d /tmp/wirespeed-wheel-check.XXXXXX)
trap 'rm -rf "$work"' EXIT
# The cache bootstrap.sh filled (under the real HOME): the installs take seconds.
UV_CACHE_DIR=$("$uv" cache dir)
export UV_CACHE_DIR PIP_CACHE_DIR="${PIP_CACHE_DIR:-$HOME/.cache/pip}"  # pipx's pip: kept too
# Nothing of the user's: no store, no uv tools, no pipx venvs are read or changed.
export HOME="$work/home" XDG_DATA_HOME="$work/home/.local/share"
export UV_TOOL_DIR="$work/uv-tools" UV_TOOL_BIN_DIR="$work/bin"
export PIPX_HOME="$work/pipx" PIPX_BIN_DIR="$work/pipx-bin"
mkdir -p "$HOME"

fail() {
  echo "wheel-check: $*" >&2
  exit 1
}
step() { echo "wheel-check: $*" >&2; }

# As `uv build` does by default: the source archive, then the wheel built from it.
"$uv" build --out-dir "$work/dist" --quiet "$repo" 2>"$work/err" || fail "uv build: $(cat "$work/err")"
wheel=$(echo "$work"/dist/wirespeed-*-py3-none-any.whl)
[ -f "$wheel" ] || fail "uv build made no wheel"
step "built $(basename "$work"/dist/wirespeed-*.tar.gz) and $(basename "$wheel")"

"$uv" tool install --quiet --from "$wheel" wirespeed
wirespeed="$UV_TOOL_BIN_DIR/wirespeed"
tool_python="$UV_TOOL_DIR/wirespeed/bin/python"
cd "$work"  # away from ./src: what runs is the installed package

"$wirespeed" --help | grep -q "^usage: wirespeed" || fail "--help shows no usage"
"$wirespeed" --version | grep -q "^wirespeed " || fail "--version"
"$wirespeed" check "$repo/examples/seed-matrix.yaml" >/dev/null || fail "check of an example plan"
"$wirespeed" plans | grep -q "seed-matrix" || fail "plans does not list seed-matrix"
"$wirespeed" check seed-matrix >/dev/null || fail "check of the built-in plan seed-matrix"
"$tool_python" - <<'EOF' || fail "the wheel's metadata: license or dependencies"
import importlib.metadata as metadata
import importlib.util

meta = metadata.metadata("wirespeed")
assert meta["License-Expression"] == "MIT", meta["License-Expression"]
files = [str(path) for path in metadata.files("wirespeed") or ()]
assert any(path.endswith(".dist-info/licenses/LICENSE") for path in files), files
assert importlib.util.find_spec("psycopg") is None, "psycopg installed without the extra"
assert importlib.util.find_spec("typer") is None, "typer installed"
EOF

# Without the extra, a PostgreSQL store names the extra to install (exit 2, no traceback).
status=0
"$wirespeed" runs --db postgresql://wirespeed@127.0.0.1:9/none 2>"$work/err" || status=$?
[ "$status" -eq 2 ] && grep -q "'wirespeed\[postgres\]'" "$work/err" && ! grep -q Traceback "$work/err" ||
  fail "runs --db postgresql:// without the extra: status $status, $(cat "$work/err")"

# Completion and the man page, from the installed parser.
bash -c 'source <("$1" completion bash) && complete -p wirespeed' _ "$wirespeed" >/dev/null ||
  fail "bash completion does not load"
if command -v man >/dev/null; then
  "$wirespeed" manpage >"$work/wirespeed.1"
  MANPAGER=cat MANWIDTH=100 man -l "$work/wirespeed.1" | grep -q "wirespeed lab up" ||
    fail "man does not render the man page"
fi
step "uv tool install: --help, check, PostgreSQL without the extra, completion, man page: ok"

# With the extra: psycopg comes along, and a store URL gets as far as the server.
"$uv" tool install --quiet --force --from "$wheel[postgres]" wirespeed
"$tool_python" -c "import psycopg" || fail "the postgres extra did not install psycopg"
status=0
"$wirespeed" runs --db postgresql://wirespeed@127.0.0.1:9/none 2>"$work/err" || status=$?
grep -q "connection refused" "$work/err" || fail "with the extra: status $status, $(cat "$work/err")"
step "uv tool install 'wirespeed[postgres]': psycopg installed, the driver connects: ok"

if [ "${1:-}" = "--pipx" ]; then
  command -v pipx >/dev/null || fail "--pipx: pipx is not installed (apt-get install pipx)"
  pipx install "$wheel" >/dev/null 2>"$work/err" || fail "pipx install: $(cat "$work/err")"
  "$PIPX_BIN_DIR/wirespeed" check "$repo/examples/seed-matrix.yaml" >/dev/null ||
    fail "pipx's wirespeed: check of an example plan"
  step "pipx install: ok"
fi
