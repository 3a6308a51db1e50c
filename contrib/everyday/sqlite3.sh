#!/bin/sh
# sqlite3.sh: the sqlite3 shell runs an UPDATE in a synced database with
# its default rollback journal (journal_mode=delete, synchronous=full):
# the journal written and fsync'd, the database written and fsync'd, the
# journal deleted.
set -eu
cd "$POWERCUT_MNT"
sqlite3 app.db "CREATE TABLE kv (k TEXT PRIMARY KEY, v TEXT);" \
  "INSERT INTO kv VALUES ('name', 'one'), ('size', '1');"
sync
sqlite3 app.db "UPDATE kv SET v = 'two' WHERE k = 'name';"
sleep "${EVERYDAY_IDLE:-7}"
