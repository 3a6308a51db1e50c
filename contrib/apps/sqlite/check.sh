#!/bin/sh
# contrib/apps/sqlite/check.sh: powercut check --verify for the SQLite
# workload.  Is the database consistent (PRAGMA integrity_check), are its
# transactions a prefix 1..K, and did it keep every transaction
# acknowledged before the crash point (the txn-N marks in POWERCUT_MARKS,
# or the txn-N lines the workload printed, in POWERCUT_ACKS_FILE, where it
# places no marks)?
# Exit 0 and "consistent: ..." if so; exit 1 and "lost: ..." if
# acknowledged transactions are gone; exit 2 and "corrupt: ..." if the
# database is damaged.  It works on a copy: opening the database recovers
# a hot journal or a WAL, which writes, as the application would after a
# reboot.
set -u
acked=0 created=no
acks=
[ -r "${POWERCUT_ACKS_FILE:-}" ] && acks=$(cat "$POWERCUT_ACKS_FILE")
for m in $POWERCUT_MARKS $acks; do
  case $m in
  txn-*) acked=${m#txn-} ;;
  created) created=yes ;;
  esac
done
if [ ! -e app.db ]; then
  [ "$created" = no ] && { echo "consistent: no database yet"; exit 0; }
  echo "lost: the database is gone ($acked transactions acknowledged)"
  exit 1
fi
work=$(mktemp -d) || exit 125
trap 'rm -rf "$work"' EXIT
cp -R . "$work/" && chmod -R u+w "$work" || exit 125
cd "$work" || exit 125
ic=$(sqlite3 app.db "PRAGMA integrity_check;" 2>&1)
if [ "$ic" != ok ]; then
  echo "corrupt: integrity_check says: $(printf '%s' "$ic" | head -n 3 | tr '\n' ' ')"
  exit 2
fi
if ! stats=$(sqlite3 app.db "SELECT count(*), coalesce(max(n), 0) FROM t;" 2>&1); then
  [ "$created" = no ] && { echo "consistent: no table yet"; exit 0; }
  echo "corrupt: the table is unreadable: $stats"
  exit 2
fi
rows=${stats%|*} max=${stats#*|}
if [ "$rows" != "$max" ]; then
  echo "corrupt: $rows rows but transaction $max (a gap)"
  exit 2
fi
if [ "$rows" -lt "$acked" ]; then
  echo "lost: $((acked - rows)) of $acked acknowledged transactions (found $rows)"
  exit 1
fi
echo "consistent: $rows transactions, $acked acknowledged"
