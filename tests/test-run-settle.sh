#!/usr/bin/env bash
# test-run-settle.sh: the crash points after powercut run's command.
#  - The recording marks where the command ended and where powercut's own
#    sync and unmount began (powercut.command-end, powercut.settle-end:
#    no manifest, no sync), and the check carries both: the JSON report's
#    records, times, how long the run settled and each point's
#    after_command, kept by a merge of shards, and the text report's
#    header and the label of each failing point after the command.
#  - A synced file replaced by a rename without an fsync, the command
#    exiting at once, on ext4 noauto_da_alloc: the rename reaches the disk
#    before its data, and the zero-length points come after the command,
#    in powercut's sync, and are labelled so.  (A sync of another
#    program's may write the data first, leaving none: which points fail
#    is not asserted; tests/unit/check_report.c tests the labels for
#    certain.)
source "$top_srcdir/tests/functions.sh"
requires_root
requires python3 nbdfuse losetup mkfs.ext4 fusermount3
json () { python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }

# after_command REPORT: every point placed against the marks, by its record
after_command ()
{
  assert_eq "$(json "$1" 'all(p["after_command"] == (None if p["record"] <= r["command_end_record"] else "settle" if p["record"] <= r["settle_end_record"] else "sync") for p in r["points"])')" True "after_command of every point ($1)"
}

# labels REPORT TEXT AFTER LABEL: TEXT (a text report of REPORT) labels
# as many points as REPORT has AFTER the command, failing or not checked
# (it lists 20 of each at most: then no more than that)
labels ()
{
  local want got
  want=$(json "$1" 'len([p for p in r["points"] if p["verdict"] != "ok" and p["after_command"] == "'"$3"'"])')
  got=$(grep -c "^    after the command: $4\$" <<<"$2" || true)
  if [ "$(json "$1" 'all(len([p for p in r["points"] if p["verdict"] != "ok" and (p["verdict"] == "not-checked") == nc]) <= 20 for nc in (False, True))')" = True ]; then
    assert_eq "$got" "$want" "points labelled '$4' ($1)"
  else
    assert_eq "$(( got <= want ))" 1 "points labelled '$4' ($1): $got of $want"
  fi
}

# version 1 synced, version 2 renamed over it without an fsync, then exit
cat >"$tmp/replace.sh" <<'SH'
#!/bin/sh
set -e
cd "$POWERCUT_MNT"
echo "version 1 of f" >f
sync
echo "version 2 of f, never synced" >f.tmp
mv f.tmp f
SH
chmod +x "$tmp/replace.sh"
configs=(--config 'ext4 noauto_da_alloc')

run powercut run --quiet "${configs[@]}" --out "$tmp/s0" -- "$tmp/replace.sh"
assert_match "$rc" '^[01]$' "recorded and checked ($err)"
n=$tmp/s0/report.json
ce=$(json "$n" 'r["command_end_record"]')
se=$(json "$n" 'r["settle_end_record"]')
assert_ge "$ce" 2 "the command's end mark"
assert_eq "$(( se > ce ))" 1 "the settle's end ($se) after the command's ($ce)"
# the log holds the two marks there, neither synced nor with a manifest
dump_log "$tmp/s0/powercut.log"
assert_match "$dump" "^ *$ce .* mark name=powercut\.command-end paths=0 durable=0$" "the command's end mark in the log"
assert_match "$dump" "^ *$se .* mark name=powercut\.settle-end paths=0 durable=0$" "the settle's end mark in the log"
assert_eq "$(json "$n" 'r["settled"] < 0.5')" True "how long it settled"
after_command "$n"
# noauto_da_alloc: the command exited at once, its losses come after it
assert_eq "$(json "$n" 'all(p["after_command"] for p in r["points"] if p["verdict"] != "ok")')" True "the failing points come after the command"
txt=$(cat "${n%.json}.txt")
assert_match "$txt" "^the command ended at [0-9.]+ s \(record $ce\); the run settled 0\.0 s \(to record $se\) before powercut's own sync and unmount$" "the text report's header"
labels "$n" "$txt" sync "powercut's own sync and unmount"
labels "$n" "$txt" settle "during the settle"

# a merge of two shards keeps where the command ended
log=$tmp/s0/powercut.log
run powercut check "$log" --shard 0/2 --json "$tmp/sh0.json"
run powercut check "$log" --shard 1/2 --json "$tmp/sh1.json"
run powercut merge --json "$tmp/m.json" "$tmp/sh0.json" "$tmp/sh1.json"
assert_match "$rc" '^[01]$' "merge ($err)"
for k in command_end_record command_end settle_end_record settle_end settled; do
  assert_eq "$(json "$tmp/m.json" "r['$k']")" "$(json "$n" "r['$k']")" "merged $k"
done
assert_eq "$(json "$tmp/m.json" '[p["after_command"] for p in r["points"]]')" \
          "$(json "$n" '[p["after_command"] for p in r["points"]]')" "merged after_command"
assert_match "$out" "^the command ended at [0-9.]+ s \(record $ce\); the run settled 0\.0 s" "the merged text report's header"
labels "$tmp/m.json" "$out" sync "powercut's own sync and unmount"
