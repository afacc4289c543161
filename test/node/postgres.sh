#!/usr/bin/env bash
# The node tier's private PostgreSQL (a host process behind the Service deps/postgresql):
#   postgres.sh start | stop      (stop: fast, every session ended, as a failover does)
# up.sh starts it after initdb; node.test.ts stops it for 20 s.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/lib.sh"
pg_bin="$(cat "$node_dir/pg_bin")"
data="$node_dir/deps/pg/data"
case "${1:-}" in
  start)
    runuser -u postgres -- "$pg_bin/pg_ctl" -D "$data" -l "$node_dir/deps/pg/postgresql.log" -w -s \
      -o "-p $pg_port -k $node_dir/deps/pg -c listen_addresses=$(node_ip) -c fsync=off -c max_connections=100" start ;;
  stop)
    runuser -u postgres -- "$pg_bin/pg_ctl" -D "$data" -m fast -w -s stop ;;
  *) die "usage: postgres.sh start|stop" ;;
esac
