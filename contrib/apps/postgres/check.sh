#!/bin/sh
# contrib/apps/postgres/check.sh: powercut check --verify for the
# PostgreSQL workload, run at each instant with both devices' trees
# ($POWERCUT_ROOT_data, $POWERCUT_ROOT_wal).  On copies of the data
# directory and pg_wal it starts the server, which recovers from its WAL
# as after a reboot, and reads the table: are its rows the prefix 1..K,
# and is every transaction acknowledged by then (the tx-N marks in
# $POWERCUT_MARKS_data) there?  Exit 0 and "consistent: ..." if so; 1 and
# "lost: ..." if an acknowledged transaction is gone; 2 and "corrupt: ..."
# if the server cannot recover or the rows have a gap.
set -u
acked=0 created=no
for m in $POWERCUT_MARKS_data; do
  case $m in
  tx-*) acked=${m#tx-} ;;
  created) created=yes ;;
  esac
done
[ "$created" = yes ] || { echo "consistent: no table yet"; exit 0; }
bindir=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
# in the scratch directory powercut runs it in (removed after, also if
# a time-out kills this before its trap runs)
work=$(mktemp -d -p "$PWD" 2>/dev/null || mktemp -d) || exit 125
chmod 755 "$work"
trap 'runuser -u postgres -- "$bindir/pg_ctl" -s -D "$work/pg" -m immediate stop >/dev/null 2>&1; rm -rf "$work"' EXIT
cp -a "$POWERCUT_ROOT_data/pg" "$work/pg" && cp -a "$POWERCUT_ROOT_wal/pg_wal" "$work/pg_wal" &&
  rm -f "$work/pg/pg_wal" && ln -s "$work/pg_wal" "$work/pg/pg_wal" &&
  chmod -R u+w "$work" && chown -R postgres "$work" && chmod 700 "$work/pg" || exit 125
rm -f "$work/pg/postmaster.pid"
cd / || exit 125                # the server and psql run as postgres, from anywhere
if ! runuser -u postgres -- "$bindir/pg_ctl" -s -w -t 60 -D "$work/pg" -l "$work/server.log" \
       -o "-c listen_addresses= -c unix_socket_directories=$work" start >/dev/null 2>&1; then
  echo "corrupt: the server does not start: $(tail -n 3 "$work/server.log" | tr '\n' ' ')"
  exit 2
fi
stats=$(runuser -u postgres -- "$bindir/psql" -X -At -h "$work" -d postgres \
        -c "SELECT count(*), coalesce(max(n), 0) FROM t" 2>"$work/psql.err") || {
  echo "corrupt: the table cannot be read: $(head -n 2 "$work/psql.err" | tr '\n' ' ')"
  exit 2
}
rows=${stats%|*} max=${stats#*|}
if [ "$rows" != "$max" ]; then
  echo "corrupt: $rows rows but transaction $max (a gap)"
  exit 2
fi
if [ "$max" -lt "$acked" ]; then
  echo "lost: $((acked - max)) of $acked acknowledged transactions (the table ends at $max)"
  exit 1
fi
echo "consistent: $max transactions, $acked acknowledged"
