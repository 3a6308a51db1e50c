#!/bin/sh
# contrib/apps/lmdb/workload.sh: LMDB (Debian's python3-lmdb) with its
# default durability (sync=True: each commit syncs the data file, by
# fdatasync, before it returns), a write transaction per key, "ok N"
# printed once commit N returned: the program's acknowledgements.
#
# Run by powercut run (in the mounted filesystem, POWERCUT_MNT in the
# environment), traced.  LMDB_KEYS (default 30) keys.  It places no mark:
# a program that knows nothing of powercut.  Its lock file (lock.mdb) is
# shared memory for the readers' table, rebuilt at open and never synced:
# no acknowledged data.  Needs Debian's python3-lmdb.
set -eu
cd "$POWERCUT_MNT"
exec /usr/bin/python3 - "${LMDB_KEYS:-30}" <<'PY'
import lmdb, sys
n = int(sys.argv[1])
env = lmdb.open("db", map_size=64 << 20)
for i in range(1, n + 1):
    with env.begin(write=True) as txn:
        txn.put(b"key-%d" % i, b"value-%d." % i * (20 + 7 * i))
    print("ok %d" % i, flush=True)
env.close()
PY
