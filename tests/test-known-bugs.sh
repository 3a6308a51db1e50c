#!/usr/bin/env bash
# test-known-bugs.sh: two of contrib/known-bugs (ext4 bugs found by
# CrashMonkey and xfstests, fixed long before this machine's kernel) run
# with their runner on this kernel: each passes.  The O_SYNC direct write's
# data zeroed in its log (the bug's effect, made by hand): the check
# reports a broken promise and names the pwrite that made it.  And a
# fast_commit filesystem, whose journal only the kernel replays as a
# reboot would: the kernel judges those states (--judge auto), every one
# is judged, none is called corrupt; with --judge ext2fs they are not
# judged (e2fsck's replay of fast commits is not the kernel's), and say
# why.  XFS's syncfs that flushes nothing: reported exactly when the log
# shows data written after the last flush before syncfs returned.  ext4
# without a journal: sync(2) that flushes before its last writes, and a
# state e2fsck -p stops at, judged as a person repairs it.
source "$top_srcdir/tests/functions.sh"
requires_root
requires python3 e2fsck xfs_io
T=$(( T * 3 ))
json () { python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
kb=$top_srcdir/contrib/known-bugs
export POWERCUT
# unflushed_at LOG CALL: True if a write came after the last flush before
# an exit of CALL (text in the call's line, such as " syncfs("), False if
# never, "no CALL" if the log has none
unflushed_at () {
  powercut log --dump "$1" | python3 -c '
import sys
pending, seen = False, []
for l in sys.stdin:
    f = l.split()
    if len(f) < 4 or not f[0].isdigit():
        continue
    if f[3] == "flush":
        pending = False
    elif f[3] == "write":
        pending = True
    elif f[3] == "event" and f[4] == "exit" and sys.argv[1] in l:
        seen.append(pending)
print(any(seen) if seen else "no" + sys.argv[1])' "$2"
}

run "$kb/run.sh" "$tmp/kb" "$kb/dio-osync-size.sh" "$kb/fdatasync-extent-ops.sh"
assert_eq "$rc" 0 "known bugs on this kernel ($out $err)"
assert_match "$out" 'dio-osync-size +passes +[1-9]' "dio-osync-size passes"
assert_match "$out" 'fdatasync-extent-ops +passes +[1-9]' "fdatasync-extent-ops passes"

# the bug's effect by hand: the 1 MiB written O_DIRECT|O_SYNC (0x5a, "Z")
# gone from the log
log=$tmp/kb/dio-osync-size/powercut.log
n=$("$top_builddir/tests/log-edit" "$log" zero-data ZZZZZZZZZZZZZZZZ) || fail "the synced data is not in the log"
[ "$n" -gt 0 ] || fail "nothing zeroed"
run powercut check "$log" --json "$tmp/zeroed.json"
assert_eq "$rc" 1 "zeroed: problems found ($err)"
assert_eq "$(json "$tmp/zeroed.json" 'r["totals"]["promises"] > 0')" True "zeroed: a broken promise"
assert_eq "$(json "$tmp/zeroed.json" 'any((f["cause"].get("durable_by") or "").startswith("pwrite64(") for p in r["points"] for f in p["findings"] if f.get("promise"))')" True \
  "zeroed: the promise is the pwrite's"

# fast commits: the kernel judges the states whose journal needs replay
run "$kb/run.sh" "$tmp/fc" "$kb/fast-commit-zero-range.sh"
assert_eq "$rc" 0 "fast_commit: every state judged, the bug absent ($out $err)"
r=$tmp/fc/fast-commit-zero-range/report.json
assert_eq "$(json "$r" 'r["totals"]["fs-corrupt"] + r["totals"]["unmountable"] + r["totals"]["not-checked"]')" 0 \
  "fast_commit: nothing called corrupt, nothing left unjudged"
assert_eq "$(json "$r" 'r["work"]["judged_by_kernel"] > 0 and any(p["judge"] == "kernel" for p in r["points"])')" True \
  "fast_commit: states the kernel judged"
assert_match "$(cat "$tmp/fc/fast-commit-zero-range/report.txt")" 'the kernel judged [0-9]+ states' "fast_commit: said"
# ... and on e2fsck's replay alone, not judged, with why
run powercut check "$tmp/fc/fast-commit-zero-range/powercut.log" --judge ext2fs --json "$tmp/fc-e2.json"
assert_eq "$rc" 2 "fast_commit, --judge ext2fs: some states not judged ($out $err)"
assert_eq "$(json "$tmp/fc-e2.json" 'r["totals"]["fs-corrupt"] + r["totals"]["unmountable"]')" 0 "fast_commit, ext2fs: nothing called corrupt"
assert_eq "$(json "$tmp/fc-e2.json" 'r["totals"]["not-checked"] > 0')" True "fast_commit, ext2fs: states not judged"
assert_match "$out" 'only the kernel replays them' "fast_commit, ext2fs: why"

# XFS's syncfs without a flush (not fixed in the host's kernel when
# found): whatever this kernel does, the verdict follows the log.  If a
# data write reached the disk after the last flush before syncfs returned
# (the bug), the check reports f durable-lost, the filesystem's fault,
# promised by that syncfs; if a flush followed every such write, it passes.
if grep -qw xfs /proc/filesystems && command -v mkfs.xfs >/dev/null; then
  run "$kb/run.sh" "$tmp/xs" "$kb/xfs-syncfs-no-flush.sh"
  assert_match "$rc" '^[01]$' "xfs syncfs: checked ($out $err)"
  d=$tmp/xs/xfs-syncfs-no-flush
  unflushed=$(unflushed_at "$d/powercut.log" " syncfs(")
  assert_match "$unflushed" '^(True|False)$' "xfs syncfs: the log has the syncfs ($unflushed)"
  echo "xfs syncfs: data unflushed when syncfs returned: $unflushed"
  if [ "$unflushed" = True ]; then
    assert_eq "$rc" 1 "xfs syncfs: data unflushed when syncfs returned: reported"
    assert_eq "$(json "$d/report.json" 'any(f["path"] == "f" and f["verdict"] == "durable-lost" and f["fault"] == "filesystem" and (f["cause"].get("durable_by") or "").startswith("syncfs(") for p in r["points"] for f in p["findings"])')" \
      True "xfs syncfs: f durable-lost, the filesystem's, promised by syncfs"
  else
    assert_eq "$rc" 0 "xfs syncfs: every write flushed before syncfs returned: passes"
  fi
fi

# ext4 without a journal (found by the hunt, not fixed in the host's
# kernel when found): sync(2) writes the inode table after its flush.
# Whatever this kernel does, the verdict follows the log: a file (synced,
# 16 KiB) found lost, the filesystem's fault promised by a sync, only if
# a write came after the last flush before a sync returned (the bug;
# which block it wrote decides whether a file is lost), and with a flush
# after every such write, it passes.
run "$kb/run.sh" "$tmp/nj" "$kb/ext4-nojournal-sync-no-flush.sh"
assert_match "$rc" '^[01]$' "no journal, sync: checked ($out $err)"
d=$tmp/nj/ext4-nojournal-sync-no-flush
unflushed=$(unflushed_at "$d/powercut.log" " sync()")
assert_match "$unflushed" '^(True|False)$' "no journal, sync: the log has the syncs ($unflushed)"
echo "no journal, sync: writes unflushed when a sync returned: $unflushed; exit $rc"
if [ "$rc" = 1 ]; then
  assert_eq "$unflushed" True "no journal, sync: reported only with writes unflushed when sync returned"
  assert_eq "$(json "$d/report.json" 'any(f["path"].startswith("f") and f["fault"] == "filesystem" and (f["cause"].get("durable_by") or "").startswith("sync(") for p in r["points"] for f in p["findings"])')" \
    True "no journal, sync: a file lost, the filesystem's, promised by sync"
fi
[ "$unflushed" = True ] || assert_eq "$rc" 0 "no journal, sync: every write flushed before sync returned: passes"

# ext4 without a journal, a state e2fsck -p stops at: never fs-corrupt
# for the stop alone (a filesystem without a journal may need e2fsck by
# hand: fsck-by-hand, nobody's), only where e2fsck -fy cannot repair it
# or e2fsck -p run again repairs it without asking (e2fsck's fault: the
# script's bug, e2fsprogs 1.47)
run "$kb/run.sh" "$tmp/ep" "$kb/e2fsck-preen-unused-inode-filetype.sh"
assert_match "$rc" '^[01]$' "no journal, e2fsck -p: checked ($out $err)"
r=$tmp/ep/e2fsck-preen-unused-inode-filetype/report.json
assert_eq "$(json "$r" '[p["id"] for p in r["points"] if p["verdict"] == "fs-corrupt" and not any("run again repairs" in e or "-fy cannot" in e or "after e2fsck -fy" in e for e in p["evidence"])]')" \
  "[]" "no journal, e2fsck -p: no point corrupt for the stop alone"
assert_eq "$(json "$r" 'all(p["fault"] == "none" for p in r["points"] if p["verdict"] == "fsck-by-hand")')" True \
  "no journal, e2fsck -p: fsck-by-hand is nobody's"
echo "no journal, e2fsck -p: $(json "$r" 'r["work"]["repaired_by_hand"]') states repaired by hand, $(json "$r" 'sum(1 for p in r["points"] if any("run again repairs" in e for e in p["evidence"]))') where it stopped for nothing"
