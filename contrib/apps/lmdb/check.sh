#!/bin/sh
# contrib/apps/lmdb/check.sh: powercut check --verify for the lmdb
# workload.  Does the environment open, and does it hold, with its value,
# every key acknowledged by the crash point (the "ok N" lines in
# POWERCUT_ACKS_FILE)?  Exit 0 and "consistent: ..." if so; exit 1 and
# "lost: K of N acknowledged keys ..." if acknowledged keys are gone or
# wrong; exit 2 and "corrupt: ..." if LMDB cannot read it.  It works on a
# copy: opening an environment writes its lock file.
set -u
exec /usr/bin/python3 - <<'PY'
import lmdb, os, shutil, sys, tempfile
acked = []
with open(os.environ["POWERCUT_ACKS_FILE"]) as f:
    for line in f:
        w = line.split()
        if len(w) == 2 and w[0] == "ok" and w[1].isdigit():
            acked.append(int(w[1]))
if not os.path.exists("db/data.mdb"):
    if acked:
        print("lost: %d of %d acknowledged keys (no database)" % (len(acked), len(acked)))
        sys.exit(1)
    print("consistent: no database yet")
    sys.exit(0)
work = tempfile.mkdtemp()
try:
    shutil.copy("db/data.mdb", work)
    try:
        env = lmdb.open(work, readonly=True, lock=False, map_size=64 << 20)
        lost = []
        with env.begin() as txn:
            for i in acked:
                if txn.get(b"key-%d" % i) != b"value-%d." % i * (20 + 7 * i):
                    lost.append(i)
    except lmdb.Error as e:
        if not acked:
            print("consistent: nothing acknowledged yet (%s)" % e)
            sys.exit(0)
        print("corrupt: lmdb cannot read it: %s" % e)
        sys.exit(2)
    if lost:
        print("lost: %d of %d acknowledged keys (key-%d first)" % (len(lost), len(acked), lost[0]))
        sys.exit(1)
    print("consistent: %d acknowledged keys" % len(acked))
finally:
    shutil.rmtree(work)
PY
