#!/usr/bin/env bash
# test-check-done.sh: a flush ends a crash state when it is answered, not
# when it is logged.  The recorder logs a DONE record for each flush and
# FUA write just before it answers it (powercut-log(5)); a state the flush
# ends is judged against what the workload had done by then.  A program
# writes a file, fsyncs it and prints "ok": as recorded, nothing is lost.
# With the log edited so that "ok" is printed while the fsync's first
# flush is still in flight (before its DONE; the fsync returns after):
# the state that flush ends lost what "ok" acknowledged.  The same edit
# with the DONE left before "ok": nothing lost.  Logs without DONE records
# (dm-log-writes imports) read as before.
source "$top_srcdir/tests/functions.sh"
requires_root
requires python3 e2fsck
T=$(( T * 3 ))
json () { python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
edit=$top_builddir/tests/log-edit

cat >"$tmp/w.py" <<'PY'
import os
fd = os.open("f", os.O_CREAT | os.O_WRONLY, 0o644)
os.write(fd, b"key\n" * 1024)
os.fsync(fd)
print("ok", flush=True)
os.close(fd)
PY
run powercut run --settle 0 -q -O "$tmp/out" -- python3 "$tmp/w.py"
assert_eq "$rc" 0 "fsync before ok: nothing lost ($out $err)"
log=$tmp/out/powercut.log
dump=$(powercut log --dump "$log")
# every flush and FUA write has its DONE, after it, naming it
assert_eq "$(awk '$4 == "done" { sub("record=", "", $5); print $5 }' <<<"$dump" | sort -n | tr '\n' ' ')" \
  "$(awk '$4 == "flush" || ($4 == "write" && / fua/) { print $1 }' <<<"$dump" | sort -n | tr '\n' ' ')" \
  "a DONE for each flush"
assert_match "$(powercut log "$log")" "done +[1-9]" "the summary counts them"

fs=$(awk '/fsync\(3<\/f>\)/ && $5 == "entry" { print $1 }' <<<"$dump")
fx=$(awk '/fsync\(3<\/f>\) = 0/ { print $1 }' <<<"$dump")
ack=$(awk '$5 == "ack" { print $1 }' <<<"$dump")
fl=$(awk -v a="$fs" '$4 == "flush" && $1 > a { print $1; exit }' <<<"$dump")
dn=$(awk -v f="$fl" '$4 == "done" && $5 == "record=" f { print $1 }' <<<"$dump")
[ -n "$fs" ] && [ -n "$fx" ] && [ -n "$ack" ] && [ -n "$fl" ] && [ -n "$dn" ] || fail "the records: $fs $fx $ack $fl $dn"
[ "$fx" -lt "$ack" ] && [ "$dn" -lt "$fx" ] || fail "recorded order: fsync $fx, ok $ack, done $dn"

# "ok" printed before the fsync returned, while its first flush was in
# flight: the fsync's exit after "ok", then that flush's DONE after "ok"
cp "$log" "$tmp/inflight.log"
"$edit" "$tmp/inflight.log" move "$fx" "$ack" || fail "log-edit move"
"$edit" "$tmp/inflight.log" move "$dn" "$ack" || fail "log-edit move"
[ "$(powercut log --dump "$tmp/inflight.log" | grep -c "done record=$fl\b")" -ge 1 ] || fail "the DONE names its flush"
run powercut check "$tmp/inflight.log" -q --json "$tmp/inflight.json"
assert_eq "$rc" 1 "ok printed while the flush was in flight: lost ($err)"
assert_eq "$(json "$tmp/inflight.json" 'sorted({(f["path"], f["verdict"], f["fault"]) for p in r["points"] for f in p["findings"]})')" \
  "[('f', 'ack-lost', 'program')]" "what ok acknowledged, at the state that flush ends"
assert_eq "$(json "$tmp/inflight.json" 'all(p["moment_record"] >= '"$((ack - 1))"' for p in r["points"] if p["verdict"] == "ack-lost")')" \
  True "judged by what the program had by the flush's DONE"

# the fsync's exit after "ok", its flush answered before: not lost
cp "$log" "$tmp/answered.log"
"$edit" "$tmp/answered.log" move "$fx" "$ack" || fail "log-edit move"
run powercut check "$tmp/answered.log" -q
assert_eq "$rc" 0 "the flush answered before ok: nothing lost ($out $err)"

# exported to dm-log-writes and back, there is no DONE: read as before
run powercut log --export dm-log-writes "$log" "$tmp/dm.log"
assert_eq "$rc" 0 "export ($err)"
run powercut log --import dm-log-writes "$tmp/dm.log" "$tmp/back.pclog"
assert_eq "$rc" 0 "import ($err)"
assert_no_match "$(powercut log "$tmp/back.pclog")" "done " "no DONE in an import"
run powercut check "$tmp/back.pclog" -q
assert_eq "$rc" 0 "the import checks ($out $err)"
