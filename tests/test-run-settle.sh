#!/usr/bin/env bash
# test-run-settle.sh: the time after powercut run's command (--settle), and
# the crash points after the command.
#  - The recording marks where the command ended and where powercut's own
#    sync and unmount began (powercut.command-end, powercut.settle-end:
#    no manifest, no sync), and the check carries both: the JSON report's
#    records, times, how long the run settled and each point's
#    after_command, kept by a merge of shards, and the text report's
#    header and the label of each failing point after the command.
#  - A synced file replaced by a rename without an fsync, the command
#    exiting at once, on ext4 with commit=1: with --settle 0 powercut
#    syncs at once; with --settle 3 the kernel's own commit makes the new
#    version durable first, at a crash point during the settle.  On
#    noauto_da_alloc the rename reaches the disk before its data: the
#    zero-length points come after the command, in powercut's sync or in
#    the settle, and are labelled so.  (A sync of another program's may
#    write the data first, leaving none: which points fail is not
#    asserted; tests/unit/check_report.c tests the labels for certain.)
#  - The default: after a command the commit interval plus one second
#    (commit=1: 2 s); after a built-in workload none.
source "$top_srcdir/tests/functions.sh"
requires_root
requires python3 nbdfuse losetup mkfs.ext4 fusermount3
json () { python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
lt () { python3 -c 'import sys; print(float(sys.argv[1]) < float(sys.argv[2]))' "$1" "$2"; }

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
configs=(--config 'ext4 commit=1' --config 'ext4 noauto_da_alloc,commit=1')

# --- --settle 0: powercut syncs as soon as the command ends -----------------
run powercut run --quiet --settle 0 "${configs[@]}" --out "$tmp/s0" -- "$tmp/replace.sh"
assert_match "$rc" '^[01]$' "--settle 0: recorded and checked ($err)"
r=$tmp/s0/1-ext4-commit-1/report.json
n=$tmp/s0/2-ext4-noauto_da_alloc-commit-1/report.json
ce=$(json "$n" 'r["command_end_record"]')
se=$(json "$n" 'r["settle_end_record"]')
assert_ge "$ce" 2 "the command's end mark"
assert_eq "$(( se > ce ))" 1 "the settle's end ($se) after the command's ($ce)"
# the log holds the two marks there, neither synced nor with a manifest
dump_log "$tmp/s0/2-ext4-noauto_da_alloc-commit-1/powercut.log"
assert_match "$dump" "^ *$ce .* mark name=powercut\.command-end paths=0 durable=0$" "the command's end mark in the log"
assert_match "$dump" "^ *$se .* mark name=powercut\.settle-end paths=0 durable=0$" "the settle's end mark in the log"
for x in "$r" "$n"; do
  assert_eq "$(json "$x" 'r["settled"] < 0.5')" True "--settle 0: how long it settled ($x)"
  after_command "$x"
done
# noauto_da_alloc: the command exited at once, its losses come after it
assert_eq "$(json "$n" 'all(p["after_command"] for p in r["points"] if p["verdict"] != "ok")')" True "--settle 0: the failing points come after the command"
txt=$(cat "${n%.json}.txt")
assert_match "$txt" "^the command ended at [0-9.]+ s \(record $ce\); the run settled 0\.0 s \(to record $se\) before powercut's own sync and unmount$" "the text report's header"
labels "$n" "$txt" sync "powercut's own sync and unmount"
labels "$n" "$txt" settle "during the settle"

# a merge of two shards keeps where the command ended
log=$tmp/s0/2-ext4-noauto_da_alloc-commit-1/powercut.log
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

# --- --settle 3: the kernel's own commit comes first ------------------------
# The rename's transaction commits 1 s after it began (commit=1): after the
# command's end if the command ended within that second.  On a loaded
# machine the traced mv may take longer, and the commit come before the
# end (in either configuration's recording): then the run is tried again
# (up to three times).
for try in 1 2 3; do
  run powercut run --quiet --settle 3 "${configs[@]}" --out "$tmp/s3-$try" -- "$tmp/replace.sh"
  assert_match "$rc" '^[01]$' "--settle 3: recorded and checked ($err)"
  r=$tmp/s3-$try/1-ext4-commit-1/report.json
  n=$tmp/s3-$try/2-ext4-noauto_da_alloc-commit-1/report.json
  # a crash point during the settle, before powercut's sync, already holds
  # f's new version: the time from which every later one does
  d=$(json "$r" 'min(w["durable"] for w in r["windows"]["list"] if w["path"] == "f" and w["mark"].startswith("rename"))')
  [ "$(lt "$(json "$r" 'r["command_end"]')" "$d")" = True ] &&
    [ "$(json "$n" 'all(p["after_command"] for p in r["points"] if p["verdict"] != "ok")')" = True ] && break
  echo "try $try: a commit before the command ended (f durable at $d s): again"
done
for x in "$r" "$n"; do
  assert_eq "$(json "$x" '3 <= r["settled"] < 4.5')" True "--settle 3: how long it settled ($x)"
  assert_match "$(cat "${x%.json}.txt")" "; the run settled [34]\.[0-9] s \(to record [0-9]+\) before powercut's own sync and unmount$" "--settle 3: the text report says so ($x)"
  after_command "$x"
done
assert_eq "$(lt "$(json "$r" 'r["command_end"]')" "$d")" True "--settle 3: f's new version durable after the command ended ($d s)"
assert_eq "$(lt "$d" "$(json "$r" 'r["settle_end"]')")" True "--settle 3: f's new version durable in the settle ($d s)"
assert_eq "$(json "$r" 'any(p["after_command"] == "settle" for p in r["points"])')" True "--settle 3: crash points in the settle"
# noauto_da_alloc: the kernel's commit of the rename without its data, in
# the settle, and powercut's sync
assert_eq "$(json "$n" 'all(p["after_command"] for p in r["points"] if p["verdict"] != "ok")')" True "--settle 3: the failing points come after the command"
txt=$(cat "${n%.json}.txt")
labels "$n" "$txt" settle "during the settle"
labels "$n" "$txt" sync "powercut's own sync and unmount"

# --- the default ------------------------------------------------------------
# after a command: the commit interval plus one second
run powercut run --quiet --config 'ext4 commit=1' --out "$tmp/d" -- sh -c 'echo data >f'
assert_match "$rc" '^[01]$' "default settle ($err)"
assert_eq "$(json "$tmp/d/report.json" '2 <= r["settled"] < 3.5')" True "commit=1: settled 2 s ($(json "$tmp/d/report.json" 'r["settled"]'))"
# after a built-in workload (which syncs at its own end mark): none
run powercut run --quiet --workload append --files 2 --out "$tmp/w"
assert_match "$rc" '^[01]$' "built-in workload ($err)"
assert_eq "$(json "$tmp/w/report.json" 'r["settled"] < 0.5')" True "a built-in workload does not settle"
