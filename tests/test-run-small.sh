#!/usr/bin/env bash
# test-run-small.sh: what a run says when its workload does something odd,
# and what its files are.
#  - A workload that unmounts its own filesystem: an error saying so, not
#    "no problem found" on an empty end.
#  - A script that exits 127 because a command inside it is missing: the
#    workload failed (exit status 127), not "cannot run it"; a program that
#    is not there: cannot run it.
#  - The recorder killed while the workload runs: the run says the
#    recorder ended, not that tracing failed.
#  - The log (every byte written to the device) is readable by its owner
#    only.
source "$top_srcdir/tests/functions.sh"
requires_root
requires nbdfuse losetup mkfs.ext4 fusermount3 e2fsck
export TMPDIR=$tmp/rt
mkdir "$TMPDIR"

cat >"$tmp/umount.sh" <<'SH'
#!/bin/sh
echo data >"$POWERCUT_MNT/f"
cd /
umount -l "$POWERCUT_MNT"
SH
cat >"$tmp/missing.sh" <<'SH'
#!/bin/sh
echo data >f
no-such-command-anywhere
SH
cat >"$tmp/killrec.sh" <<'SH'
#!/bin/sh
echo data >f
sync
kill -9 "$(cat "$(dirname "$POWERCUT_CONTROL")/record.pid")"
echo more >g
sync
SH
chmod +x "$tmp"/*.sh

for how in --trace --no-trace; do
  run powercut run --settle 0 -q $how --out "$tmp/u$how" -- "$tmp/umount.sh"
  assert_eq "$rc" 2 "a workload that unmounts ($how)"
  assert_match "$err" "the workload unmounted its filesystem" "says so ($how)"
  assert_no_match "$out" "no problem found" "no verdict ($how)"

  run powercut run --settle 0 -q $how --out "$tmp/m$how" -- "$tmp/missing.sh"
  assert_eq "$rc" 2 "a command inside the script missing ($how)"
  assert_match "$err" "the workload failed \(exit status 127\)" "the script failed ($how)"
  assert_no_match "$err" "cannot run it" "not 'cannot run it' ($how)"

  run powercut run --settle 0 -q $how --out "$tmp/n$how" -- "$tmp/no-such-script.sh"
  assert_eq "$rc" 2 "no such program ($how)"
  assert_match "$err" "no-such-script.sh: cannot run it: No such file or directory" "cannot run it ($how)"

  run powercut run --settle 0 -q $how --out "$tmp/k$how" -- "$tmp/killrec.sh"
  assert_eq "$rc" 2 "the recorder killed ($how)"
  assert_match "$err" "the recorder ended while the workload ran" "says the recorder ended ($how)"
  assert_no_match "$err" "could not be traced" "not a tracing error ($how)"
done

run powercut run -q --workload append --files 3 --out "$tmp/mode"
assert_match "$rc" '^[01]$' "a run ($err)"
assert_eq "$(stat -c %a "$tmp/mode/powercut.log")" 600 "the log's mode"
