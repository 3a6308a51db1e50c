#!/usr/bin/env bash
# test-check-moment.sh: a crash state is judged at the last moment the disk
# could still hold it (up to the next flush that ends it), not at its own
# point.
#  - A mark declares f durable while its new content is only in the page
#    cache, and an fsync a second later writes it: the states before that
#    fsync's flush are durable-lost, a broken promise judged after the mark
#    (traced and not).  With a real fsync before the mark: no finding.
#  - An fsync that returns before its data is on the disk (the recording
#    edited: f's data moved to after the fsync's exit event, before a later
#    flush): a broken promise at the states in between, naming the fsync.
#    The same recording unedited: none.
source "$top_srcdir/tests/functions.sh"
requires_root
requires python3 e2fsck
T=$(( T * 3 ))
json () { python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }

cat >"$tmp/lying.sh" <<'SH'
#!/bin/sh
set -e
head -c 8192 /dev/urandom >f
sync
powercut mark m0 --manifest "$POWERCUT_MNT" --sync
head -c 8192 /dev/urandom | dd of=f conv=notrunc status=none
[ -z "$HONEST" ] || python3 -c 'import os; os.fsync(os.open("f", os.O_RDWR))'
powercut mark m1 --manifest "$POWERCUT_MNT" --durable f
sleep 1
python3 -c 'import os; os.fsync(os.open("f", os.O_RDWR))'
powercut mark done --manifest "$POWERCUT_MNT" --sync
SH
chmod +x "$tmp/lying.sh"

for trace in --trace --no-trace; do
  run powercut run --settle 0 $trace -q -O "$tmp/lying$trace" -- "$tmp/lying.sh"
  assert_eq "$rc" 1 "a lying mark ($trace): problems found ($err)"
  r=$tmp/lying$trace/report.json
  assert_eq "$(json "$r" 'r["totals"]["durable-lost"] >= 1')" True "durable-lost ($trace)"
  assert_eq "$(json "$r" 'sorted({f["path"] for p in r["points"] for f in p["findings"] if f["verdict"] == "durable-lost"})')" "['f']" "only f ($trace)"
  assert_eq "$(json "$r" 'all(f["promise"] for p in r["points"] for f in p["findings"] if f["verdict"] == "durable-lost")')" True "a broken promise ($trace)"
  # judged at its moment: the failing states come before the mark, and
  # their stretch on the disk reaches past it
  m1=$(powercut log "$tmp/lying$trace/powercut.log" | sed -n 's/^  record \([0-9]*\) at .*: m1 (.*/\1/p')
  [ -n "$m1" ] || fail "no mark m1 in the log"
  assert_eq "$(json "$r" 'all(p["record"] < '"$m1"' <= p["moment_record"] for p in r["points"] if p["verdict"] == "durable-lost")')" True "judged after the mark ($trace)"
  assert_match "$(cat "$tmp/lying$trace/report.txt")" "after the mark m1 at [0-9.]+ s, the disk could still hold this state \(until [0-9.]+ s\)" "the report says when ($trace)"

  HONEST=1 run powercut run --settle 0 $trace -q -O "$tmp/honest$trace" -- "$tmp/lying.sh"
  assert_eq "$rc" 0 "an fsync before the mark ($trace): no problem ($out $err)"
done

# An fsync that returns before its data is on the disk.
cat >"$tmp/liar.sh" <<'SH'
#!/bin/sh
set -e
python3 -c 'import sys; sys.stdout.write("A" * 8192)' >f
sync
python3 - <<'PY'
import os
fd = os.open("f", os.O_RDWR)
os.pwrite(fd, b"FSYNC-LIAR-DATA." * 512, 0)
os.fsync(fd)
PY
sleep 1
sync
SH
chmod +x "$tmp/liar.sh"
run powercut run --settle 0 -q -O "$tmp/liar" -- "$tmp/liar.sh"
assert_eq "$rc" 0 "fsync, unedited: no problem ($out $err)"
log=$tmp/liar/powercut.log
exit_seq () { powercut log --dump "$log" | awk '/ event exit .*fsync\(/ && x == "" { x = $1 } END { print x }'; }
moved=0
for _ in 1 2 3 4 5 6 7 8; do
  x=$(exit_seq)
  [ -n "$x" ] || fail "no fsync exit event in the log"
  d=$("$top_builddir/tests/log-edit" "$log" find-data FSYNC-LIAR-DATA | awk -v x="$x" '$1 < x' | tail -n 1)
  [ -n "$d" ] || break
  "$top_builddir/tests/log-edit" "$log" move "$d" "$x" || fail "log-edit move"
  moved=$((moved + 1))
done
[ "$moved" -gt 0 ] || fail "the fsync's data was not found before its exit"
run powercut check "$log" --json "$tmp/liar.json"
assert_eq "$rc" 1 "fsync that returns first: problems found ($err)"
assert_eq "$(json "$tmp/liar.json" 'any(f["promise"] and "fsync" in (f["cause"].get("durable_by") or "") for p in r["points"] for f in p["findings"] if f["path"] == "f")')" True "a broken promise naming the fsync"
assert_match "$out" "durable: synced [0-9]+ ms later by fsync\\(" "the report names the fsync"
x=$(exit_seq)
assert_eq "$(json "$tmp/liar.json" 'all(p["record"] < '"$x"' <= p["moment_record"] for p in r["points"] if p["verdict"] != "ok")')" True "only states before the fsync's exit, judged after it"
