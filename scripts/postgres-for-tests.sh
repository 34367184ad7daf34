#!/usr/bin/env bash
# A throwaway PostgreSQL for the store's tests, on a fresh Debian 12 machine run as root
# (no systemd needed). Prints the URL to export as WIRESPEED_TEST_POSTGRES_URL.
#
#   scripts/postgres-for-tests.sh         install if needed, start, print the URL
#   scripts/postgres-for-tests.sh stop    stop it (the data directory is kept)
#   scripts/postgres-for-tests.sh purge   stop it and remove its data directory
#
# It runs its own cluster (initdb) in a directory of its own instead of Debian's
# `main` cluster, so it never changes a PostgreSQL the machine already has: it listens on
# 127.0.0.1 only, on its own port, with its socket in its data directory. Only the role
# `wirespeed` may log in over TCP, without a password (trust on loopback: a throwaway
# server for tests, not for data); that role may create databases, not be superuser.
# The cluster runs with fsync off: the tests create and drop a database each, and a
# test server does not need to survive a power cut. Autovacuum is off too: its worker
# (a superuser's backend) could be in a test's database when the test drops it, and
# DROP DATABASE ... WITH (FORCE) may not end another role's backend. Safe to run again: when the server
# is already up it only prints the URL.
set -euo pipefail

version=15
bindir=/usr/lib/postgresql/$version/bin
data=${WIRESPEED_PG_DIR:-/var/tmp/wirespeed-postgres}
port=${WIRESPEED_PG_PORT:-54329}
role=wirespeed
database=wirespeed_test
url="postgresql://$role@127.0.0.1:$port/$database"

# From / so that the server and its tools never depend on the caller's directory.
as_postgres() { (cd / && runuser -u postgres -- "$@"); }

is_up() { [ -x "$bindir/pg_ctl" ] && as_postgres "$bindir/pg_ctl" -D "$data" status >/dev/null 2>&1; }

if [ "$(id -u)" -ne 0 ]; then
  echo "postgres-for-tests: run as root (it installs a Debian package and runs the server as postgres)" >&2
  exit 4
fi

case "${1:-start}" in
  stop)
    if is_up; then as_postgres "$bindir/pg_ctl" -D "$data" -m fast -w stop >/dev/null; fi
    exit 0
    ;;
  purge)
    if is_up; then as_postgres "$bindir/pg_ctl" -D "$data" -m fast -w stop >/dev/null; fi
    rm -rf "$data"
    exit 0
    ;;
  start) ;;
  *)
    echo "usage: $0 [start|stop|purge]" >&2
    exit 2
    ;;
esac

if [ ! -x "$bindir/postgres" ]; then
  echo "postgres-for-tests: installing postgresql-$version" >&2
  # Debian's package would create and start a `main` cluster on 5432; this script runs
  # its own, so ask postgresql-common not to (only when it is not configured yet).
  if [ ! -e /etc/postgresql-common/createcluster.conf ]; then
    mkdir -p /etc/postgresql-common/createcluster.d
    echo "create_main_cluster = false" >/etc/postgresql-common/createcluster.d/wirespeed-tests.conf
  fi
  log=$(mktemp)
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -qq --no-install-recommends "postgresql-$version"; } >"$log" 2>&1; then
    cat "$log" >&2
    echo "postgres-for-tests: apt-get failed (output above)" >&2
    exit 1
  fi
  rm -f "$log"
fi

if ! is_up; then
  if [ ! -s "$data/PG_VERSION" ]; then
    rm -rf "$data"
    install -d -o postgres -g postgres -m 0700 "$data"
    as_postgres "$bindir/initdb" -D "$data" -U postgres -A reject --no-sync \
      -E UTF8 --locale=C.UTF-8 >/dev/null
    cat >"$data/pg_hba.conf" <<EOF
# postgres-for-tests.sh: the superuser over the private socket, the test role over loopback
local all postgres peer
host  all $role 127.0.0.1/32 trust
EOF
  fi
  if command -v ss >/dev/null && ss -Hltn "sport = :$port" | grep -q .; then
    echo "postgres-for-tests: port $port is taken by another program; set WIRESPEED_PG_PORT" >&2
    exit 1
  fi
  as_postgres "$bindir/pg_ctl" -D "$data" -l "$data/server.log" -w -t 60 start -o \
    "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$data \
     -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200 \
     -c autovacuum=off" \
    >/dev/null || {
    tail -n 20 "$data/server.log" >&2
    echo "postgres-for-tests: the server did not start (log above)" >&2
    exit 1
  }
fi

psql=("$bindir/psql" -X -q -v ON_ERROR_STOP=1 -h "$data" -p "$port" -U postgres -d postgres)
as_postgres "${psql[@]}" -tA -c "SELECT 1 FROM pg_roles WHERE rolname = '$role'" | grep -q 1 ||
  as_postgres "${psql[@]}" -c "CREATE ROLE $role LOGIN CREATEDB"
as_postgres "${psql[@]}" -tA -c "SELECT 1 FROM pg_database WHERE datname = '$database'" |
  grep -q 1 || as_postgres "${psql[@]}" -c "CREATE DATABASE $database OWNER $role"

echo "$url"
