#!/bin/sh
# contrib/apps/sqlite/workload.sh: numbered SQLite transactions, each
# acknowledged by a mark placed once its COMMIT returned.
#
# Run by powercut run (in the mounted filesystem, with POWERCUT and its
# control socket in the environment).  SQLITE_JOURNAL_MODE (delete or wal,
# default delete), SQLITE_SYNCHRONOUS (off, normal or full, default full)
# and SQLITE_TRANSACTIONS (default 30) choose what it does; the sqlite3
# program does it, one process per transaction, as an application would.
# With SQLITE_MARKS=no it places no mark at all, as a program that knows
# nothing of powercut: run traced, its history is its calls, and it
# prints each mark's name instead ("created", "txn-N"): its
# acknowledgements.
set -eu
mode=${SQLITE_JOURNAL_MODE:-delete}
sync=${SQLITE_SYNCHRONOUS:-full}
n=${SQLITE_TRANSACTIONS:-30}
mark() { if [ "${SQLITE_MARKS:-yes}" = no ]; then echo "$1"; else "$POWERCUT" mark "$@"; fi; }

cd "$POWERCUT_MNT"
sqlite3 app.db "PRAGMA journal_mode=$mode;" \
  "CREATE TABLE t (n INTEGER PRIMARY KEY, payload BLOB NOT NULL);" >/dev/null
sync
mark created
i=1
while [ "$i" -le "$n" ]; do
  sqlite3 app.db "PRAGMA synchronous=$sync;" \
    "INSERT INTO t VALUES ($i, randomblob(3000 + $i * 100));"
  mark "txn-$i"
  i=$((i + 1))
done
