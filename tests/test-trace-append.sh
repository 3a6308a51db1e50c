#!/usr/bin/env bash
# test-trace-append.sh: an append-only writer that places no mark and
# never syncs (tests/trace/appender.py), judged by its traced calls.  Every
# crash point is rebuilt on its own (replay, e2fsck's journal recovery,
# debugfs) and what its file holds decides what the report must say: a
# non-empty prefix that ends where a write ended, no finding; an empty
# file, zero-length; anything else (a tail of zeros, bytes never written
# there), a finding.
source "$top_srcdir/tests/functions.sh"
requires_root
requires nbdfuse losetup mkfs.ext4 fusermount3 e2fsck debugfs python3

for try in 1 2 3; do
  out_dir=$tmp/run$try
  run powercut run --settle 0 --quiet --config 'ext4 commit=1' --out "$out_dir" -- \
      python3 "$top_srcdir/tests/trace/appender.py" 3000 3
  [ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "run: exit $rc ($err)"
  # the file was found empty somewhere (the case to show), or try again
  python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["totals"]["zero-length"] else 1)' \
    "$out_dir/report.json" && break
done

: >"$tmp/expect"
for id in $(python3 -c 'import json,sys; print(" ".join(p["id"] for p in json.load(open(sys.argv[1]))["points"]))' "$out_dir/report.json"); do
  rm -f "$tmp/img" "$tmp/log"
  timeout "$T" "$POWERCUT" replay "$out_dir/powercut.log" --at "$id" -o "$tmp/img" \
    || fail "replay --at $id"
  timeout "$T" e2fsck -fy "$tmp/img" >/dev/null 2>&1 || [ $? -le 1 ] || fail "e2fsck at $id"
  timeout "$T" debugfs -R "dump /log $tmp/log" "$tmp/img" >/dev/null 2>&1 || fail "debugfs at $id"
  # what this point must show for the file: none, zero-length or flagged
  python3 - "$id" "$tmp/log" >>"$tmp/expect" <<'PY'
import os, sys
point, path = sys.argv[1], sys.argv[2]
lines = [(("line %d " % i).ljust(20 + i % 37, "x") + "\n").encode() for i in range(3000)]
ends, at = {0}, 0
for l in lines:
    at += len(l)
    ends.add(at)
full = b"".join(lines)
if not os.path.exists(path):
    print(point, "none")            # never made durable: absence is allowed
else:
    data = open(path, "rb").read()
    if not data:
        print(point, "zero-length")
    elif len(data) in ends and full.startswith(data):
        print(point, "none")
    else:
        print(point, "flagged")
PY
done
reported=$(python3 - "$out_dir/report.json" <<'PY'
import json, sys
for p in json.load(open(sys.argv[1]))["points"]:
    v = [f["verdict"] for f in p["findings"] if f["path"] == "log"]
    print(p["id"], "none" if not v else v[0] if v[0] == "zero-length" else "flagged")
PY
)
echo "$reported" | awk '{print $2}' | sort | uniq -c
assert_eq "$reported" "$(cat "$tmp/expect")" "findings for the appended file against the rebuilt states"
assert_match "$reported" ' none' "points holding a prefix"
assert_match "$reported" ' zero-length' "points holding an empty file"
