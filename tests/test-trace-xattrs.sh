#!/usr/bin/env bash
# test-trace-xattrs.sh: extended attributes are versions a traced program
# makes.  A program sets, syncs, removes and sets again attributes of a
# file: as recorded, no crash point has a finding.  Then one value is
# zeroed in the log (a filesystem without metadata checksums, so that
# e2fsck passes it): the points that read it are reported, naming the
# attribute and the setxattr call behind it.
source "$top_srcdir/tests/functions.sh"
requires_root
requires nbdfuse losetup mkfs.ext4 fusermount3 e2fsck python3

cat >"$tmp/x.py" <<'PY'
import os
with open("f", "wb") as f:
    f.write(b"data\n")
for i in range(20):
    os.setxattr("f", "user.v", b"value %d" % i)
    if i % 5 == 4:
        fd = os.open("f", os.O_RDONLY)
        os.fsync(fd)
        os.close(fd)
os.removexattr("f", "user.v")
os.setxattr("f", "user.w", b"w" * 40)
PY
run powercut run --settle 0 --quiet --config ext4 --mkfs-opts '-b 4096 -O ^metadata_csum' \
    --out "$tmp/o" -- python3 "$tmp/x.py"
assert_eq "$rc" 0 "run ($out $err)"
assert_match "$(cat "$tmp/o/report.txt")" 'no problem found' "as recorded"

cp "$tmp/o/powercut.log" "$tmp/e.log"
run "$top_builddir/tests/log-edit" "$tmp/e.log" zero-data "value 19"
assert_eq "$rc" 0 "the value in the log ($err)"
run powercut check "$tmp/e.log" --quiet --json "$tmp/e.json"
assert_eq "$rc" 1 "check of the edited log ($out $err)"
python3 - "$tmp/e.json" <<'PY' || fail "the attribute's findings"
import json, sys
r = json.load(open(sys.argv[1]))
fs = [f for p in r["points"] for f in p["findings"] if f["path"] == "f"]
assert fs, r["totals"]
for f in fs:
    assert "user.v" in f["cause"]["rule"], f
    assert "xattr(" in f["cause"]["call"], f
PY
