#!/usr/bin/env bash
# test-trace-mmap.sh: a file written through a shared writable mapping and
# made durable with fdatasync.  The tracer cannot see what the mapping
# writes, so at each fdatasync (and msync, munmap, exit) of such a file it
# records what the file then holds.  A small store whose pages start as
# pwrite()s and are then rewritten through its mapping, each store
# fdatasync'ed before its header and again before it is acknowledged:
# no crash state breaks a promise, and its own checker passes everywhere.
# With one synced page zeroed in the log: a broken promise at the states
# after the fdatasync that made it durable, which the finding names.
source "$top_srcdir/tests/functions.sh"
requires_root
requires python3 e2fsck
T=$(( T * 4 ))
json () { python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }

cat >"$tmp/store.py" <<'PY'
import mmap, os, struct, zlib
PAGES = 17
fd = os.open("store", os.O_CREAT | os.O_RDWR, 0o644)
os.ftruncate(fd, PAGES * 4096)
m = mmap.mmap(fd, PAGES * 4096)
for i in range(1, PAGES):                       # every record page starts free
    os.pwrite(fd, b"FREEPAGE" * 512, i * 4096)
os.fdatasync(fd)
for i in range(1, PAGES):
    body = (b"MMAPREC-%03d." % i) * (4092 // 12)
    m[i * 4096:(i + 1) * 4096] = struct.pack("<I", zlib.crc32(body)) + body
    os.fdatasync(fd)                            # the record, then the header
    os.pwrite(fd, struct.pack("<II", 0x4d53544f, i) + b"\0" * 4088, 0)
    os.fdatasync(fd)
    print("ok %d" % i, flush=True)
m.close()
os.close(fd)
PY
cat >"$tmp/check.py" <<'PY'
import struct, sys, zlib
try:
    data = open("store", "rb").read()
except FileNotFoundError:
    sys.exit(0)
magic, n = struct.unpack("<II", data[:8]) if len(data) >= 8 else (0, 0)
if magic == 0:
    sys.exit(0)
if magic != 0x4d53544f:
    sys.exit("bad header")
for i in range(1, n + 1):
    page = data[i * 4096:(i + 1) * 4096]
    if len(page) < 4096 or struct.unpack("<I", page[:4])[0] != zlib.crc32(page[4:]):
        sys.exit("record %d of %d is bad" % (i, n))
PY

run powercut run --settle 0 -q --fail-on promises --verify "python3 $tmp/check.py" -O "$tmp/out" -- python3 "$tmp/store.py"
assert_eq "$rc" 0 "the store: no broken promise ($out $err)"
r=$tmp/out/report.json
assert_eq "$(json "$r" 'r["totals"]["promises"], r["totals"]["app-invalid"], r["totals"]["not-checked"]')" "(0, 0, 0)" "no broken promise, its checker passes"
assert_eq "$(json "$r" 'r["totals"]["ok"] > 20')" True "crash points checked"
assert_no_match "$(cat "$tmp/out/report.txt")" "not judged" "the store's file is judged"

cp "$tmp/out/powercut.log" "$tmp/zeroed.log"
n=$("$top_builddir/tests/log-edit" "$tmp/zeroed.log" zero-block MMAPREC-005.) || fail "record 5 is not in the log"
assert_eq "$n" 1 "record 5's page written once"
run powercut check "$tmp/zeroed.log" --json "$tmp/zeroed.json"
assert_eq "$rc" 1 "record 5 zeroed: problems found ($err)"
assert_eq "$(json "$tmp/zeroed.json" 'r["totals"]["promises"] > 0')" True "a broken promise"
assert_eq "$(json "$tmp/zeroed.json" 'sorted({(f["path"], f["cause"]["durable_by"].split("(")[0]) for p in r["points"] for f in p["findings"] if f.get("promise")})')" \
  "[('store', 'fdatasync')]" "the store's page, made durable by fdatasync"
