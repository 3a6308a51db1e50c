#!/usr/bin/env bash
# test-run-acks.sh: a traced program's acknowledgements are the lines it
# prints.  A key-value store that appends each key without syncing and
# prints "ok N" after each: every line is an ACK event in the log, in
# order with the disk's writes, and a --verify checker that reads
# POWERCUT_ACKS_FILE fails at the states before the final flushes (the
# disk held none of the acknowledged keys while the store said ok), where
# the report names what had been acknowledged and what the store lost.
# The same store with an fsync before each "ok": no failure.
source "$top_srcdir/tests/functions.sh"
requires_root
requires python3 e2fsck
T=$(( T * 3 ))
json () { python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }

cat >"$tmp/store.sh" <<'SH'
#!/bin/sh
# appends key N to the store and acknowledges it
for n in 1 2 3 4 5 6 7; do
  echo "key $n" >>store
  [ -z "$SYNC" ] || python3 -c 'import os; os.fsync(os.open("store", os.O_RDONLY))'
  echo "ok $n"
done
SH
cat >"$tmp/check.sh" <<'SH'
#!/bin/sh
# every acknowledged key is in the store
[ "$(wc -l <"$POWERCUT_ACKS_FILE")" = "$POWERCUT_ACK_COUNT" ] || { echo "bad count"; exit 3; }
while read -r ok n; do
  grep -qx "key $n" store 2>/dev/null || { echo "acknowledged key $n is lost"; exit 1; }
done <"$POWERCUT_ACKS_FILE"
SH
chmod +x "$tmp/store.sh" "$tmp/check.sh"

run powercut run --settle 0 -q -O "$tmp/nosync" --verify "$tmp/check.sh" -- "$tmp/store.sh"
assert_eq "$rc" 1 "acknowledged, never synced: problems found ($err)"
# what it printed reached its output, and each line is an ACK in the log
assert_eq "$(cat "$tmp/nosync/workload.txt" | grep -c '^ok [1-7]$')" 7 "the store's output"
assert_eq "$(powercut log --dump "$tmp/nosync/powercut.log" | awk '$4 == "event" && $5 == "ack" { print $8, $9 }' | tr '\n' ' ')" \
  "ok 1 ok 2 ok 3 ok 4 ok 5 ok 6 ok 7 " "ACK events, in order"
r=$tmp/nosync/report.json
assert_eq "$(json "$r" 'r["totals"]["app-invalid"] > 0')" True "app-invalid states"
assert_eq "$(json "$r" 'all(any("acknowledged key" in l for l in p["evidence"]) and any("acknowledged by this state" in l and "ok 7" in l for l in p["evidence"]) for p in r["points"] if p["verdict"] == "app-invalid")')" True \
  "the evidence names what was acknowledged and lost"
assert_eq "$(json "$r" 'sorted({(f["path"], f["verdict"]) for p in r["points"] if p["verdict"] == "app-invalid" for f in p["findings"] if f["verdict"] in ("older-version", "ack-lost")})')" "[('store', 'ack-lost')]" \
  "the store is older than acknowledged, and what the checker needed"
# the failing states are those the disk held while the store said ok
assert_eq "$(json "$r" 'all(p["record"] < max(x["record"] for x in r["points"]) for p in r["points"] if p["verdict"] == "app-invalid")')" True \
  "not the end"
assert_match "$(cat "$tmp/nosync/report.txt")" "acknowledged by this state's moment: 7 lines, the last \"ok 7\"" "the text report"
# an acknowledged update never made durable, lost where the checker fails,
# is the program's fault, not a promise the filesystem broke
assert_eq "$(json "$r" 'r["totals"]["promises"], r["totals"]["program_promises"] > 0, r["totals"]["acknowledged_lost"] > 0')" \
  "(0, True, True)" "counted as the program's fault"
run powercut check "$tmp/nosync/powercut.log" -q --verify "$tmp/check.sh" --fail-on promises
assert_eq "$rc" 0 "no promise of the filesystem broken ($err)"
# without the checker: the store is never synced, so the program does not
# treat it as durable data (as a log or an index it rebuilds): nothing
# acknowledged lost (with the checker, above, what it needed is named)
run powercut check "$tmp/nosync/powercut.log" -q --json "$tmp/nocheck.json"
assert_eq "$rc" 0 "a file never synced: no acknowledged loss without a checker ($err)"
assert_eq "$(json "$tmp/nocheck.json" 'r["totals"]["acknowledged_lost"]')" 0 "no ack-lost"

SYNC=1 run powercut run --settle 0 -q -O "$tmp/sync" --verify "$tmp/check.sh" -- "$tmp/store.sh"
# nothing acknowledged lost, nobody's promise broken (a loaded machine may
# write an appended key back before its fsync: that exposure is nobody's)
[ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "an fsync before each ok: exit status $rc ($err)"
assert_eq "$(json "$tmp/sync/report.json" 'r["totals"]["app-invalid"], r["totals"]["not-checked"], r["totals"]["promises"], r["totals"]["program_promises"], r["totals"]["acknowledged_lost"]')" \
  "(0, 0, 0, 0, 0)" "an fsync before each ok: the checker passes everywhere, nothing acknowledged lost ($out)"

# without tracing there are no acknowledgements: the checker is told none
run powercut run --settle 0 -q --no-trace -O "$tmp/untraced" --verify "$tmp/check.sh" -- "$tmp/store.sh"
assert_eq "$(powercut log --dump "$tmp/untraced/powercut.log" | awk '$5 == "ack"' | wc -l)" 0 "no ACK untraced"
