#!/usr/bin/env bash
# test-trace-acl.sh: POSIX ACLs are judged by what the kernel keeps, not by
# the bytes a program set.  sed -i, vim, install and logrotate set
# system.posix_acl_access to an ACL that only repeats the mode; ext4 folds
# it into the mode and stores no attribute: no finding.  A named user's
# ACL, chmod'ed after (the kernel rewrites the stored mask), a default ACL
# on a directory and a file that inherits it: no finding.  Then the named
# user's id is zeroed in the log (metadata checksums off, so that e2fsck
# passes it): the points that read it are reported, naming the attribute.
source "$top_srcdir/tests/functions.sh"
requires_root
requires nbdfuse losetup mkfs.ext4 fusermount3 e2fsck python3

# the four lines of the report: data, an ACL equal to the mode, sync
cat >"$tmp/folded.sh" <<'SH'
echo data > f
printf '\2\0\0\0\1\0\6\0\377\377\377\377\4\0\4\0\377\377\377\377 \0\4\0\377\377\377\377' > "$1"
python3 -c 'import os, sys; os.setxattr("f", "system.posix_acl_access", open(sys.argv[1], "rb").read())' "$1"
sync -f .
SH
run powercut run --settle 0 --quiet --config ext4 --out "$tmp/f" -- sh "$tmp/folded.sh" "$tmp/acl.bin"
assert_eq "$rc" 0 "an ACL equal to the mode: exit status ($out $err)"
assert_match "$(cat "$tmp/f/report.txt")" 'no problem found' "an ACL equal to the mode"

cat >"$tmp/named.py" <<'PY'
import os, struct
def acl(*entries):
    return struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *e) for e in entries)
NO = 0xffffffff
U = 0x41414141      # its bytes, "AAAA", found in the log below
with open("g", "wb") as f:
    f.write(b"data\n")
os.setxattr("g", "system.posix_acl_access",
            acl((1, 7, NO), (2, 6, U), (4, 5, NO), (0x10, 7, NO), (0x20, 4, NO)))
os.chmod("g", 0o640)            # the mask becomes r--
os.mkdir("d")
os.setxattr("d", "system.posix_acl_default",
            acl((1, 7, NO), (4, 5, NO), (8, 5, 0x42424242), (0x10, 5, NO), (0x20, 0, NO)))
with open("d/h", "wb") as f:    # inherits an access ACL: no call sets it
    f.write(b"inherited\n")
os.sync()
PY
run powercut run --settle 0 --quiet --config ext4 --mkfs-opts '-b 4096 -O ^metadata_csum' \
    --out "$tmp/n" -- python3 "$tmp/named.py"
assert_eq "$rc" 0 "named and default ACLs: exit status ($out $err)"
assert_match "$(cat "$tmp/n/report.txt")" 'no problem found' "named and default ACLs"

cp "$tmp/n/powercut.log" "$tmp/e.log"
run "$top_builddir/tests/log-edit" "$tmp/e.log" zero-data AAAA
assert_eq "$rc" 0 "the named user's id in the log ($err)"
run powercut check "$tmp/e.log" --quiet --json "$tmp/e.json"
assert_eq "$rc" 1 "check of the edited log ($out $err)"
python3 - "$tmp/e.json" <<'PY' || fail "the ACL's findings"
import json, sys
r = json.load(open(sys.argv[1]))
fs = [f for p in r["points"] for f in p["findings"]]
assert fs, r["totals"]
for f in fs:
    assert f["path"] == "g", f
    assert "system.posix_acl_access" in f["cause"]["rule"], f
    assert "setxattr(" in f["cause"]["call"], f
PY
