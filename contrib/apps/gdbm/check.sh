#!/bin/sh
# contrib/apps/gdbm/check.sh: powercut check --verify for the gdbm
# workload.  Does the database open, and does it hold, with its value,
# every key acknowledged by the crash point (the "ok N" lines in
# POWERCUT_ACKS_FILE)?  Exit 0 and "consistent: ..." if so; exit 1 and
# "lost: K of N acknowledged keys ..." if acknowledged keys are gone or
# wrong; exit 2 and "corrupt: ..." if gdbm cannot read the database.  It
# works on a copy: gdbm may write to a file it opens.
set -u
exec /usr/bin/python3 - <<'PY'
import dbm.gnu, os, shutil, sys, tempfile
acked = []
with open(os.environ["POWERCUT_ACKS_FILE"]) as f:
    for line in f:
        w = line.split()
        if len(w) == 2 and w[0] == "ok" and w[1].isdigit():
            acked.append(int(w[1]))
if not os.path.exists("kv.gdbm"):
    if acked:
        print("lost: %d of %d acknowledged keys (the database is gone)" % (len(acked), len(acked)))
        sys.exit(1)
    print("consistent: no database yet")
    sys.exit(0)
work = tempfile.mkdtemp()
try:
    shutil.copy("kv.gdbm", work)
    try:
        db = dbm.gnu.open(os.path.join(work, "kv.gdbm"), "r")
    except Exception as e:
        if not acked and os.path.getsize("kv.gdbm") == 0:
            print("consistent: an empty file, nothing acknowledged yet")
            sys.exit(0)
        print("corrupt: gdbm cannot open it: %s" % e)
        sys.exit(2)
    lost = []
    for i in acked:
        try:
            v = db.get(b"key-%d" % i)
        except Exception as e:
            print("corrupt: reading key-%d: %s" % (i, e))
            sys.exit(2)
        if v != b"value-%d." % i * (20 + 7 * i):
            lost.append(i)
    db.close()
finally:
    shutil.rmtree(work)
if lost:
    print("lost: %d of %d acknowledged keys (key-%s%s)" % (len(lost), len(acked), lost[0],
          " .. key-%d" % lost[-1] if len(lost) > 1 else ""))
    sys.exit(1)
print("consistent: %d acknowledged keys present" % len(acked))
PY
