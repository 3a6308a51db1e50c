#!/bin/sh
# contrib/apps/gdbm/workload.sh: GNU dbm in its synchronous mode
# (GDBM_SYNC, "s" in Python's dbm.gnu), a store per key, "ok N" printed
# once store N returned: the program's acknowledgements.
#
# Run by powercut run (in the mounted filesystem, POWERCUT_MNT in the
# environment), traced: each line it prints is an acknowledgement, and the
# tracer reads the database (which gdbm writes through a shared mapping)
# at each one.  GDBM_KEYS (default 30) keys.  It places no mark: a program
# that knows nothing of powercut.  Needs Debian's python3-gdbm.
set -eu
cd "$POWERCUT_MNT"
exec /usr/bin/python3 - "${GDBM_KEYS:-30}" <<'PY'
import dbm.gnu, sys
n = int(sys.argv[1])
db = dbm.gnu.open("kv.gdbm", "cs")      # create; GDBM_SYNC
for i in range(1, n + 1):
    db[b"key-%d" % i] = b"value-%d." % i * (20 + 7 * i)
    print("ok %d" % i, flush=True)
db.close()
PY
