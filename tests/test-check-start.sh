#!/usr/bin/env bash
# test-check-start.sh: the state at the start mark is judged under every
# model.  A file written and synced before the mark "start", then
# overwritten in place, declared durable by a mark a moment before its
# fdatasync: until that fdatasync's flush the disk still holds the state
# of the last flush before "start", with the old file, which the mark
# said could not be.  Under the flush model that state is no flush after
# the mark, so it was never judged; now it is the first point of every
# model, and the broken declaration is found there.  Traced, with an
# "ok" printed between the overwrite and the fdatasync: the same state
# loses what was acknowledged.
source "$top_srcdir/tests/functions.sh"
requires_root
requires python3 e2fsck
T=$(( T * 3 ))
json () { python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }

cat >"$tmp/w.py" <<'PY'
import os, subprocess, sys, time
pc = [os.environ["POWERCUT"], "mark", "--control", os.environ["POWERCUT_CONTROL"]]
with open("f", "w") as f:
    f.write("old\n" * 1024)
os.sync()
subprocess.run(pc + ["start"], check=True)
fd = os.open("f", os.O_WRONLY)
os.pwrite(fd, b"new\n" * 1024, 0)
if sys.argv[1:] == ["mark"]:
    subprocess.run(pc + ["v2", "--manifest", ".", "--durable", "f"], check=True)
else:
    print("ok", flush=True)
time.sleep(0.3)
os.fdatasync(fd)
os.close(fd)
PY

run powercut run --settle 0 -q --no-trace -O "$tmp/mark" -- python3 "$tmp/w.py" mark
[ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "run: exit $rc ($err)"
log=$tmp/mark/powercut.log
start=$(powercut log --dump "$log" | awk '$4 == "mark" && $5 == "name=start" { print $1 }')
[ -n "$start" ] || fail "no start mark"
for model in flush write reorder:2; do
  run powercut check "$log" --from start -m "$model" -q --json "$tmp/mark-$model.json"
  assert_eq "$rc" 1 "$model: the declaration broken at the start state ($err)"
  assert_eq "$(json "$tmp/mark-$model.json" 'int(r["points"][0]["id"]) < '"$start"', r["points"][0]["verdict"], r["points"][0]["findings"][0]["path"], r["points"][0]["findings"][0]["promise"]')" \
    "(True, 'mismatch', 'f', True)" "$model: the first point is the last flush before the mark, f as before"
done

run powercut run --settle 0 -q -O "$tmp/ack" -- python3 "$tmp/w.py"
[ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "run: exit $rc ($err)"
run powercut check "$tmp/ack/powercut.log" --from start -q --json "$tmp/ack.json"
assert_eq "$rc" 1 "acknowledged, lost at the start state ($err)"
assert_eq "$(json "$tmp/ack.json" '[(f["path"], f["verdict"], f["cause"]["acknowledged"]) for f in r["points"][0]["findings"]]')" \
  "[('f', 'ack-lost', 'ok')]" "the start state lost what \"ok\" acknowledged"
