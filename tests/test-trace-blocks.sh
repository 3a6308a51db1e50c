#!/usr/bin/env bash
# test-trace-blocks.sh: contrib/known-bugs/trace-blocks.sh, the second
# method that confirms a kernel finding without powercut (block
# tracepoints on a loop device), tells a flushed write of a file's data
# from one left in the device's cache: on ext4, a direct overwrite that
# no fsync follows is a write of f's data without a flush after it (exit
# 1); the same with fsync is flushed (exit 0); XFS's syncfs script on
# ext4, the control of the bug it confirms, is flushed.  Nothing is left
# mounted or attached, and no tracefs instance remains.
source "$top_srcdir/tests/functions.sh"
requires_root
requires xfs_io filefrag losetup mkfs.ext4
[ -d /sys/kernel/tracing ] || { echo "$0: test skipped: no tracefs"; exit 77; }
tb=$top_srcdir/contrib/known-bugs/trace-blocks.sh
instances () { ls "$tmp/t/instances" 2>/dev/null | grep -c '^powercut-' || true; }

cat >"$tmp/dio-nosync.sh" <<'S'
#!/bin/sh
set -e
xfs_io -f -c "pwrite -S 0x11 0 16384" -c fsync f >/dev/null
echo "overwrite" >"$TRACE_MARK"
xfs_io -d -c "pwrite -S 0x22 0 4096" f >/dev/null
S
sed 's/pwrite -S 0x22 0 4096"/pwrite -S 0x22 0 4096" -c fsync/' "$tmp/dio-nosync.sh" >"$tmp/dio-fsync.sh"
chmod +x "$tmp"/*.sh

run "$tb" -f f ext4 "$tmp/dio-nosync.sh"
assert_eq "$rc" 1 "a direct overwrite with no fsync ($err)"
assert_match "$out" "-- overwrite
  write  W[A-Z]* +sector [0-9]+ \+ 8  \(f's data\)" "the overwrite, as f's data, after its mark"
assert_match "$out" "1 write of the files' data \(8 sectors\) had no flush after it" "the overwrite left in the cache"

run "$tb" -f f ext4 "$tmp/dio-fsync.sh"
assert_eq "$rc" 0 "a direct overwrite and fsync ($out $err)"
assert_match "$out" "flush  F" "a flush"
assert_match "$out" "every one of the writes of the files' data was flushed" "the overwrite flushed"

run "$tb" -f f ext4 "$top_srcdir/contrib/known-bugs/xfs-syncfs-no-flush.sh"
assert_eq "$rc" 0 "ext4's syncfs flushes ($out $err)"

run "$tb" -f nothere ext4 "$tmp/dio-fsync.sh"
assert_eq "$rc" 2 "a file the script did not make"
assert_match "$err" "nothere: not a file" "says which"

mkdir "$tmp/t" && mount -t tracefs nodev "$tmp/t" && cleanup_fn umount "$tmp/t"
assert_eq "$(instances)" 0 "tracefs instances left"
