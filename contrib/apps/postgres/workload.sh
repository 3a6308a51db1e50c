#!/bin/sh
# contrib/apps/postgres/workload.sh: PostgreSQL with its write-ahead log on
# a filesystem of its own, the textbook production layout.  The data
# directory goes on $POWERCUT_MNT_data, pg_wal on $POWERCUT_MNT_wal
# (initdb --waldir); the server runs as the user postgres with a Unix
# socket in a scratch directory; then PG_TX transactions (default 12)
# insert the numbers 1..PG_TX, one each, and after each COMMIT returns the
# mark tx-N goes into the data device's log ($POWERCUT_CONTROL_data), with
# synchronous_commit on (the default): a committed transaction must
# survive.  The mark "created" follows the table's creation.  PG_OPTS
# adds server settings ("-c fsync=off": what the documentation says then).
set -eu
bindir=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
n=${PG_TX:-12}
sock=$(mktemp -d)
chown postgres "$sock"
mkdir "$POWERCUT_MNT_data/pg" "$POWERCUT_MNT_wal/pg_wal"
chown postgres "$POWERCUT_MNT_data/pg" "$POWERCUT_MNT_wal/pg_wal"
as_pg () { runuser -u postgres -- "$@"; }
as_pg "$bindir/initdb" -A trust --wal-segsize=1 -D "$POWERCUT_MNT_data/pg" --waldir="$POWERCUT_MNT_wal/pg_wal" >/dev/null
as_pg "$bindir/pg_ctl" -s -w -D "$POWERCUT_MNT_data/pg" -l "$sock/server.log" \
      -o "-c listen_addresses= -c unix_socket_directories=$sock ${PG_OPTS:-}" start
trap 'as_pg "$bindir/pg_ctl" -s -w -D "$POWERCUT_MNT_data/pg" -m immediate stop; rm -rf "$sock"' EXIT
psql () { as_pg "$bindir/psql" -X -q -h "$sock" -d postgres -v ON_ERROR_STOP=1 "$@"; }
psql -c "CREATE TABLE t (n integer PRIMARY KEY)"
"$POWERCUT" mark --control "$POWERCUT_CONTROL_data" created
i=1
while [ "$i" -le "$n" ]; do
  psql -c "INSERT INTO t VALUES ($i)"
  "$POWERCUT" mark --control "$POWERCUT_CONTROL_data" "tx-$i"
  i=$((i + 1))
done
