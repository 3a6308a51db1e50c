#!/usr/bin/env bash
# test-check-ext4.sh: every flush crash point of a kernel ext4 workload (nbdfuse + loop) survives, one point per FLUSH/FUA after the first mark, and the JSON report agrees; write and reorder:2 run too.
. "$top_srcdir/tests/functions.sh"
requires_root
requires nbdfuse losetup mkfs.ext4 mount umount mountpoint fusermount3 python3

# check's scratch files go here, so that leftovers can be seen.
export TMPDIR=$tmp/scratch
mkdir "$TMPDIR"

# ext4 on loop over nbdfuse, recorded, with the mark mkfs.
mount_ext4 64M

# --- An ordinary workload, with syncs and marks in between. ------------------
# It is safe at the application level, which the oracle checks: a file's
# content changes only by writing a temporary file, fsyncing it and
# renaming it over the name, so every name holds an old or a new version at
# any moment, whatever the kernel commits when (a jbd2 timer commit in the
# middle of a write, or syncfs: with dioread_nolock the first commit of
# `sync` can carry a new file's size with unwritten extents, and a crash
# there finds a file full of zeros, which powercut rightly calls
# zero-filled).  Temporary files are in no manifest.
w=${mnt:?}
# put FILE: writes stdin to FILE.tmp, fsyncs it, renames it to FILE and
# makes the rename durable.
put () { cat >"$1.tmp"; sync "$1.tmp"; mv "$1.tmp" "$1"; sync "$1"; }
mkdir "$w/dir" "$w/dir/sub"
for i in 1 2 3 4 5; do seq 1 $(( i * 3000 )) | put "$w/dir/f$i"; done
head -c 300K /dev/urandom | put "$w/big"
ln -s dir/f1 "$w/link"
sync -f "$w"
run powercut mark --control "$ctl" files --manifest "$w" --sync
# a mark after the files are written
assert_eq "$rc" 0 "powercut mark files: exit status (stderr: $err)"
mv "$w/dir/f1" "$w/dir/sub/g1"
rm "$w/dir/f2" "$w/big"
{ cat "$w/dir/f3"; echo appended; } | put "$w/dir/f3"
seq 1 5000 | put "$w/dir/f4"
run powercut mark --control "$ctl" renamed --manifest "$w" --durable "$w/dir/f3" --durable "$w/dir/f4"
# a mark after renames and deletes, with durable files
assert_eq "$rc" 0 "powercut mark renamed: exit status (stderr: $err)"
mkdir "$w/dir2"
seq 1 20000 | put "$w/dir2/h"
ln "$w/dir2/h" "$w/dir2/hardlink"
rm -r "$w/dir/sub"
sync -f "$w"
run powercut mark --control "$ctl" last --manifest "$w" --sync
# the last mark
assert_eq "$rc" 0 "powercut mark last: exit status (stderr: $err)"

unmount_ext4
stop_recorder

# --- The crash points the flush model must give. -----------------------------
dump_log
# the log reads
assert_eq "$dump_rc" 0 "powercut log --dump: exit status"
first_mark=$(awk '$4 == "mark" { print $1; exit }' <<<"$dump")
# the first mark is the one after mkfs
assert_match "$(awk -v r="$first_mark" '$1 == r' <<<"$dump")" 'mark name=mkfs ' "first mark"
# start M: the state at the start, the last FLUSH before mark record M
start () { awk -v m="$1" '!/^#/ && $1 < m && $4 == "flush" { f = $1 } END { if (f != "") print f }' <<<"$dump"; }
expected_ids=$(start "$first_mark"; awk -v m="$first_mark" '!/^#/ && $1 > m && ($4 == "flush" || / fua( |$)/) { print $1 }' <<<"$dump")
nexpected=$(grep -c . <<<"$expected_ids")
# the workload flushed a few times after the mark
assert_ge "$nexpected" 5 "FLUSH and FUA records after the first mark"

# points FILE: the report's point ids, one a line; verdicts FILE: "id verdict"
# lines; total FILE NAME: a total; top FILE NAME: a top-level field.
points () { python3 -c 'import json,sys; [print(p["id"]) for p in json.load(open(sys.argv[1]))["points"]]' "$1"; }
verdicts () { python3 -c 'import json,sys; [print(p["id"], p["verdict"]) for p in json.load(open(sys.argv[1]))["points"]]' "$1"; }
total () { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["totals"][sys.argv[2]])' "$1" "$2"; }
top () { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }
# leftovers: what check left in its scratch directory
leftovers () { ls -A "$TMPDIR" | tr '\n' ' '; }
# summary: the verdict lines of the text report in $out, on one line
summary () { grep -E '^ +[a-z-]+ +[0-9]+$' <<<"$out" | tr -s ' ' | tr '\n' ';'; }

run powercut check "$log" --json "$tmp/r.json"
# every flush crash point of ext4 survives
assert_eq "$rc" 0 "powercut check: exit status (stdout: $out; stderr: $err)"
# the text report says so
assert_match "$out" '^no problem found$' "text report"
# the text report counts the same points
assert_match "$out" "^$nexpected crash points, [0-9]+ distinct images checked" "text report points"
# the state at the start, then one point per FLUSH and FUA record after the
# first mark, in log order
assert_eq "$(points "$tmp/r.json" | tr '\n' ' ')" "$(tr '\n' ' ' <<<"$expected_ids")" "crash point ids"
# all of them ok
assert_eq "$(verdicts "$tmp/r.json" | awk '$2 != "ok"' | tr '\n' ';')" "" "points not ok"
# the totals count them
assert_eq "$(total "$tmp/r.json" points) $(total "$tmp/r.json" ok)" "$nexpected $nexpected" "totals points and ok"
# and no failure
assert_eq "$(for v in fs-corrupt unmountable zero-length missing mismatch durable-lost; do total "$tmp/r.json" "$v"; done | tr '\n' ' ')" "0 0 0 0 0 0 " "totals of failing verdicts"
unique=$(total "$tmp/r.json" unique)
# identical images are checked once: 1 <= unique <= points
assert_eq "$(( unique >= 1 && unique <= nexpected ))" 1 "totals unique: $unique"
# the report describes the run
assert_eq "$(top "$tmp/r.json" model) $(top "$tmp/r.json" from) $(top "$tmp/r.json" from_record) $(top "$tmp/r.json" log_torn)" "flush mkfs $first_mark False" "model, from, from_record, log_torn"
# check cleans up its scratch files
assert_eq "$(leftovers)" "" "left in \$TMPDIR after check"

# --- Other models. ------------------------------------------------------------
run powercut check "$log" -m write --json "$tmp/w.json"
echo "check -m write: exit status $rc; $(summary)"
# the write model runs (0 or 1)
assert_eq "$(( rc == 0 || rc == 1 ))" 1 "check -m write: exit status $rc (stderr: $err)"
# the state at the start, then one after every record from the first mark on
assert_eq "$(total "$tmp/w.json" points)" "$(( $(awk -v m="$first_mark" '!/^#/ && $1 >= m && $4 != "done"' <<<"$dump" | wc -l) + 1 ))" "write model points"
# every prefix of a journalled, flushed ext4 running a safe workload survives
assert_eq "$(verdicts "$tmp/w.json" | awk '$2 != "ok"' | tr '\n' ';')" "" "write model: points not ok"

run powercut check "$log" -m reorder:2 --json "$tmp/o.json"
echo "check -m reorder:2: exit status $rc; $(summary)"
# the reorder model runs (0 or 1)
assert_eq "$(( rc == 0 || rc == 1 ))" 1 "check -m reorder:2: exit status $rc (stderr: $err)"
# it checks more states than the flush model
assert_ge "$(total "$tmp/o.json" points)" "$(( nexpected + 1 ))" "reorder:2 points"
# jbd2 orders its commits with flushes: every reordering within an epoch survives
assert_eq "$(verdicts "$tmp/o.json" | awk '$2 != "ok"' | tr '\n' ';')" "" "reorder:2: points not ok"
# no scratch files left
assert_eq "$(leftovers)" "" "left in \$TMPDIR after the other models"

# --- --from, and errors. -------------------------------------------------------
files_rec=$(awk '$4 == "mark" && $5 == "name=files" { print $1 }' <<<"$dump")
run powercut check "$log" --from files --json "$tmp/f.json" -q
# checking from a later mark
assert_eq "$rc" 0 "check --from files: exit status (stderr: $err)"
# only the state at that mark and the FLUSH and FUA records after it are points
assert_eq "$(points "$tmp/f.json" | tr '\n' ' ')" "$(start "$files_rec" | tr '\n' ' ')$(awk -v m="$files_rec" '!/^#/ && $1 > m && ($4 == "flush" || / fua( |$)/) { printf "%s ", $1 }' <<<"$dump")" "points of --from files"
assert_eq "$(top "$tmp/f.json" from) $(top "$tmp/f.json" from_record)" "files $files_rec" "from and from_record of --from files"
run powercut check "$log" --from nope
# an unknown mark: exit 2, one line naming it
assert_eq "$rc $(grep -c . <<<"$err")" "2 1" "check --from nope: exit status and lines (stderr: $err)"
assert_match "$err" "^powercut check: .*nope" "check --from nope: message"
head -c 4096 /dev/urandom >"$tmp/notalog"
run powercut check "$tmp/notalog"
# not a log: exit 2, one line naming the file
assert_eq "$rc $(grep -c . <<<"$err")" "2 1" "check of a file that is not a log: exit status and lines (stderr: $err)"
assert_match "$err" "^powercut check: .*notalog" "check of a file that is not a log: message"
# no scratch files left
assert_eq "$(leftovers)" "" "left in \$TMPDIR at the end"
