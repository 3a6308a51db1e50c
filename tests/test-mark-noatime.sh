#!/usr/bin/env bash
# test-mark-noatime.sh: a mark's manifest reads every file and directory
# of the tree without touching their access times.  Reading them as any
# reader does would update an atime that is not newer than the file's
# mtime (relatime): a change of the filesystem under test that the
# workload never made, in the transaction its next operation joins (on
# ext4 that transaction then commits with the next fdatasync and hides a
# bug that loses the operation).  Checked where reading does update
# atimes here (a plain cat first, the control).
source "$top_srcdir/tests/functions.sh"
requires stat
d=$tmp/tree
mkdir -p "$d/sub"
echo data >"$d/f"
echo more >"$d/sub/g"
old () { touch -a -d '2001-01-01 00:00:00' "$d/f" "$d/sub/g" "$d/sub"; }
atimes () { stat -c %X "$d/f" "$d/sub/g" "$d/sub" | tr '\n' ' '; }

# the control: does reading update atimes on this filesystem at all?
old
before=$(atimes)
cat "$d/f" "$d/sub/g" >/dev/null
ls "$d/sub" >/dev/null
[ "$(atimes)" != "$before" ] || {
  echo "$0: test skipped: reading updates no atime here (mounted noatime?)"; exit 77; }

start_recorder --size 1M
old
before=$(atimes)
run powercut mark --control "$ctl" m1 --manifest "$d"
assert_eq "$rc" 0 "a mark with a manifest ($err)"
assert_eq "$(atimes)" "$before" "the atimes after the manifest"
stop_recorder
# the manifest did read the files: their hashes are in the mark
run powercut log --dump "$log"
assert_match "$out" "mark name=m1 paths=3 " "the mark's manifest of the tree"
