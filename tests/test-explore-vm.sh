#!/usr/bin/env bash
# test-explore-vm.sh: explore --attach vm, the whole exploration in one
# qemu guest (explore.h, pc_explore_guest): --seq 1 --limit 2 on the
# default configurations runs every workload there, recorded and judged
# by the guest's kernel, and reports here (the table, results.jsonl,
# explore.json); cut short (the last results gone, as an interruption
# leaves it), --resume carries the directory into a guest again and runs
# only what is missing, keeping the rest as it was; nothing is left
# running, and no scratch folder.  A failure's reproduce line starts from
# the base image the guest brought back.
# all its work is in qemu guests: it takes no lock, and runs beside others
test_parallel=yes
source "$top_srcdir/tests/functions.sh"
requires qemu-system-x86_64 python3 xfs_io setfattr
ls /boot/vmlinuz-* >/dev/null 2>&1 || { echo "$0: test skipped: no kernel in /boot"; exit 77; }
[ -x /usr/sbin/nbd-client ] || [ -x /sbin/nbd-client ] || { echo "$0: test skipped: no nbd-client"; exit 77; }
[ -x /bin/busybox ] || [ -x /usr/bin/busybox ] || { echo "$0: test skipped: no busybox"; exit 77; }
T=$(( T * 5 ))     # a guest under TCG is slow
export TMPDIR=$tmp

run powercut explore --attach vm --seq 1 --limit 2 --out "$tmp/x"
[ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "explore --attach vm: exit status $rc ($err)"
assert_match "$err" "exploring in a qemu guest" "says where it explores"
for c in 'ext4' 'ext4 noauto_da_alloc' 'ext4 data=journal' 'ext3'; do
  assert_match "$out" "^$c +2 " "the table's row of $c"
done
assert_eq "$(wc -l <"$tmp/x/results.jsonl")" 8 "a result per workload and configuration"
assert_eq "$(python3 -c 'import json,sys; print(all(json.loads(l)["outcome"] not in ("error", "not-checked") for l in open(sys.argv[1])))' "$tmp/x/results.jsonl")" \
  True "every workload recorded and judged"
[ -s "$tmp/x/explore.json" ] || fail "no explore.json"
assert_eq "$(cat "$tmp/x/summary.txt")" "$out" "the summary printed is the one kept"

# a failure's reproduce line boots the same kernel with the programs the
# workloads ran (the guest's busybox has neither xfs_io nor setfattr),
# judged by that kernel as explore judged it
for f in "$tmp"/x/failures/*.sh; do
  [ -f "$f" ] || continue
  assert_match "$(sed -n 's/^#   reproduce: *//p' "$f")" \
    "^powercut run --attach vm --kernel [^ ]+ --program xfs_io --program setfattr --judge guest " "$(basename "$f")'s reproduce line"
done

# a failure found in the guest (no barriers, writes reordered): its
# reproduce line records from the base image it came from, brought back
# here, as the exploration recorded it (test-explore-reproduce.sh runs
# such a line from an XFS base image in a guest and sees it fail again)
run powercut explore --attach vm --seq 1 --only 'mwrite d0/f0 fsync.root' --config 'ext4 nobarrier' \
  --model reorder --out "$tmp/f" --quiet
assert_eq "$rc" 1 "explore --attach vm of a configuration that loses synced data ($err)"
assert_match "$(sed -n 's/^#   reproduce: *//p' "$tmp/f/failures/1.sh")" \
  "^powercut run --attach vm --kernel [^ ]+ --program xfs_io --program setfattr --judge guest --config 'ext4 nobarrier' --model reorder:4 --seed 0 --base $tmp/f/bases/c0.img --settle 0 -- $tmp/f/failures/1.sh\$" \
  "the guest's failure's reproduce line, from its base image"
[ -s "$tmp/f/bases/c0.img" ] || fail "the base image not brought back"

# cut short: the last two results gone, as an interrupted exploration
# leaves them; --resume runs those two and keeps the others
head -n 6 "$tmp/x/results.jsonl" >"$tmp/kept"
cp "$tmp/kept" "$tmp/x/results.jsonl"
run powercut explore --attach vm --seq 1 --limit 2 --out "$tmp/x" --resume --quiet
[ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "explore --attach vm --resume: exit status $rc ($err)"
assert_eq "$(wc -l <"$tmp/x/results.jsonl")" 8 "--resume: every result again"
assert_eq "$(head -n 6 "$tmp/x/results.jsonl")" "$(cat "$tmp/kept")" "--resume: what was done kept as it was"
for c in 'ext4' 'ext4 noauto_da_alloc' 'ext4 data=journal' 'ext3'; do
  assert_match "$out" "^$c +2 " "--resume: the table's row of $c"
done

# nothing left: no guest running, no scratch folder
assert_eq "$(pgrep -f -- "$tmp/" || true)" "" "no guest left running"
assert_eq "$(ls -d "$tmp"/powercut-* "$tmp"/x/.guest.* 2>/dev/null || true)" "" "no scratch folder left"
