#!/usr/bin/env bash
# Everything wirespeed needs on a fresh Debian 12 machine, run as root: the tools it drives
# (from Debian's packages) and its Python environment (uv, from PyPI, in its own venv so the
# system Python stays untouched), pinned by uv.lock. Safe to run again: it only adds what
# is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" -ne 0 ]; then
  echo "bootstrap: run as root (it installs Debian packages; the lab needs root too)" >&2
  exit 4
fi

packages=(iperf iperf3 irtt iputils-ping iproute2 nftables ethtool procps kmod busybox dropbear-bin openssl 7zip util-linux python3 python3-venv openvpn wireguard-go wireguard-tools)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed" || missing+=("$package")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "bootstrap: installing ${missing[*]}" >&2
  log=$(mktemp)
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
    cat "$log" >&2
    echo "bootstrap: apt-get failed (output above)" >&2
    exit 1
  fi
  rm -f "$log"
fi

uv_version=0.13.9
if [ ! -x .tools/uv/bin/uv ]; then
  echo "bootstrap: installing uv $uv_version into .tools/uv" >&2
  python3 -m venv .tools/uv
  .tools/uv/bin/pip install --quiet --disable-pip-version-check "uv==$uv_version"
fi
# Never download a Python: use the machine's (3.11 on Debian 12).
export UV_PYTHON_DOWNLOADS=never
# The postgres extra too: the store is tested on PostgreSQL as well as SQLite.
.tools/uv/bin/uv sync --frozen --quiet --extra postgres
