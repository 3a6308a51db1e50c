#!/usr/bin/env bash
# test-trace-untraceable.sh: what the tracer cannot follow never gives a
# false verdict.  A traced program writes a file through a shared mapping,
# syncs everything and ends without msync, fsync or munmap of it (what the
# mapping wrote is seen only at the end); another file it wrote is changed
# by a process outside the traced tree (this test).  Both paths are
# reported not-judged, with the reason, up front in the text report, at
# every crash point after the change (the files read as anything there);
# the program's other file is judged as ever.
source "$top_srcdir/tests/functions.sh"
requires_root
requires nbdfuse losetup mkfs.ext4 fusermount3 e2fsck python3

cat >"$tmp/w.py" <<'PY'
import mmap, os, sys, time
hs = sys.argv[1]
with open("plain", "wb") as f:
    f.write(b"judged as ever\n")
with open("theirs", "wb") as f:
    f.write(b"the program's\n")
os.sync()
# tell the test where the filesystem is, and wait until it changed "theirs"
open(hs + "/mnt", "w").write(os.getcwd())
for i in range(600):
    if os.path.exists(hs + "/done"):
        break
    time.sleep(0.05)
fd = os.open("mapped", os.O_RDWR | os.O_CREAT, 0o644)
os.ftruncate(fd, 4096)
m = mmap.mmap(fd, 4096, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
m[:8] = b"mapped!\n"
os.sync()               # written back, but the tracer does not see what
m[:8] = b"changed\n"    # (an fsync, fdatasync or msync of the file would show
                        # it); at the exit it sees only this
os._exit(0)             # no msync, no munmap: the mapping ends with the process
PY
mkdir "$tmp/hs"
# the process outside the traced tree: rewrites "theirs" once the
# workload says where it is
(
  for i in $(seq 600); do [ -s "$tmp/hs/mnt" ] && break; sleep 0.05; done
  d=$(cat "$tmp/hs/mnt")
  printf 'not the program'"'"'s\n' >"$d/theirs" && sync -f "$d/theirs"
  touch "$tmp/hs/done"
) &
helper=$!
stop_helper () { kill "$helper" 2>/dev/null || true; }
cleanup_fn stop_helper

run powercut run --settle 0 --quiet --config ext4 --out "$tmp/o" -- python3 "$tmp/w.py" "$tmp/hs"
[ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "run: exit $rc ($err)"
wait "$helper" || fail "the outside writer"
report=$(cat "$tmp/o/report.txt")
echo "$report" | head -20
assert_match "$report" 'not judged: 2 paths written by calls the tracer cannot follow' "up front"
python3 - "$tmp/o/report.json" <<'PY' || fail "the not-judged paths"
import json, sys
r = json.load(open(sys.argv[1]))
seen = {}
for p in r["points"]:
    for f in p["findings"]:
        assert f["path"] != "plain" or f["verdict"] != "not-judged", f
        if f["verdict"] == "not-judged":
            seen.setdefault(f["path"], f["cause"]["rule"])
        else:
            # no false verdict on the two paths
            assert f["path"] not in ("mapped", "theirs"), (p["id"], f)
assert "never msync'd" in seen.get("mapped", ""), seen
assert "does not see" in seen.get("theirs", ""), seen
PY
