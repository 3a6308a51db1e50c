#!/usr/bin/env bash
# test-trace-windows.sh: the durability windows of a traced program follow
# the versions it had that mattered, not only versions at marks, nor every
# write.  A writer that appends 400 records to one file without fsync and
# places no mark: its windows list one version, the last write's (named by
# its call), lost by a crash before the data reached the disk and not
# acknowledged (nothing was synced before the end).  Nothing was
# promised, so no point may break a promise (--fail-on promises); what a point holds of the
# unsynced data is up to the kernel's timing: with ext4's default
# dioread_nolock the end's syncfs can commit the file's size a
# transaction before its extents are converted, and writeback started
# while the program appends can commit a size beyond the data written,
# so that a crash finds the file zero-filled or a mismatch (exposure) in
# some runs and not others.
source "$top_srcdir/tests/functions.sh"
requires_root
requires python3 e2fsck
T=$(( T * 3 ))
json () { python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }

cat >"$tmp/append.py" <<'PY'
import os
fd = os.open("log", os.O_CREAT | os.O_WRONLY | os.O_APPEND, 0o644)
for i in range(400):
    os.write(fd, b"record %04d, appended and never synced\n" % i)
os.close(fd)
PY
run powercut run --settle 0 -q --fail-on promises -O "$tmp/out" -- python3 "$tmp/append.py"
assert_eq "$rc" 0 "unsynced appends: nothing promised, nothing broken ($err)"
r=$tmp/out/report.json
assert_eq "$(json "$r" 'r["totals"]["promises"]')" 0 "points that broke a promise"
# the versions that mattered: nothing synced or marked them on the way, so
# of 400 writes only the last one is a version (not one per write)
assert_eq "$(json "$r" '[w["mark"][:27] for w in r["windows"]["list"] if w["path"] == "log"]')" \
  "['write(3</log>, \"record 0399']" "one version: the last write"
assert_eq "$(json "$r" 'all(w["durable"] is None or w["durable"] >= w["written"] for w in r["windows"]["list"])')" True \
  "each window ends after it starts"
assert_eq "$(json "$r" 'r["windows"]["exposed_versions"] >= 1')" True "lost by a crash after the call"
assert_match "$(cat "$tmp/out/report.txt")" "log as of write\(3</log>, \"record 0399" "the text report names the call"
