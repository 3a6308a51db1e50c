#!/usr/bin/env bash
# test-record-log-eio.sh: the disk under the log starts returning EIO while
# a client writes: its flush fails with EIO, and so does every request
# after, even once the disk works again (a failed fdatasync may have lost
# records that a later one would not bring back); reads go on; stop says
# the recording could not be ended; the log keeps everything acknowledged.
# Then an export to a file on that disk fails on fsync, in one line.
#
# The log's disk: ext4 on a loop device over nbdfuse over nbdkit's memory
# plugin with its error filter, which fails every request while
# $tmp/trigger exists.
. "$top_srcdir/tests/functions.sh"
requires_root
requires nbdkit nbdfuse fusermount3 losetup mkfs.ext4 mount umount qemu-io

mkdir "$tmp/fuse" "$tmp/logfs"
nbdkit --unix "$tmp/disk.sock" --pidfile "$tmp/disk.pid" --filter=error memory 64M \
       error-rate=100% error=EIO error-file="$tmp/trigger"
wait_until "$T" test -s "$tmp/disk.pid"
stop_disk () { kill "$(cat "$tmp/disk.pid")" 2>/dev/null || true; }
cleanup_fn stop_disk
timeout "$T" nbdfuse "$tmp/fuse" --unix "$tmp/disk.sock" 2>/dev/null &
fuse_pid=$!
unmount_fuse () { fusermount3 -u "$tmp/fuse" 2>/dev/null || true; wait "$fuse_pid" 2>/dev/null || true; }
cleanup_fn unmount_fuse
wait_until "$T" test -e "$tmp/fuse/nbd"
logloop=$(timeout "$T" losetup -f --show "$tmp/fuse/nbd")
assert_match "$logloop" '^/dev/loop[0-9]+$' "losetup"
detach_logloop () { losetup -d "$logloop" 2>/dev/null || true; }
cleanup_fn detach_logloop
mkfs.ext4 -q -F "$logloop" || fail "mkfs.ext4"
timeout "$T" mount "$logloop" "$tmp/logfs"
umount_logfs () { ! is_mounted "$tmp/logfs" || umount -l "$tmp/logfs"; }
cleanup_fn umount_logfs

log=$tmp/logfs/log
start_recorder --size 16M
run qemu-io -t none -f raw -c 'write -P 1 0 64k' -c flush "$uri"
# while the log's disk works, a write and a flush succeed
assert_eq "$rc" 0 "write and flush before the errors ($out $err)"
assert_no_match "$out" "failed" "write and flush before the errors"

touch "$tmp/trigger"
run qemu-io -t none -f raw -c 'write -P 2 64k 64k' -c flush "$uri"
# the write is taken (volatile, as a disk cache takes it), but the flush
# cannot make the log durable: it fails (qemu-io's flush says so only by
# its exit status)
assert_match "$out" "wrote 65536/65536 bytes at offset 65536" "write while the log's disk fails"
assert_eq "$rc" 1 "flush while the log's disk fails ($out $err)"
rm "$tmp/trigger"

# The disk works again, but the recorder acknowledges nothing any more.
run qemu-io -t none -f raw -c 'write -P 3 128k 4k' "$uri"
assert_match "$out $err" "write failed: Input/output error" "write after the failure"
run qemu-io -t none -f raw -c flush "$uri"
assert_eq "$rc" 1 "flush after the failure ($out $err)"
# reads go on: what was acknowledged before the failure reads back
run qemu-io -t none -f raw -c 'read -P 1 0 64k' "$uri"
assert_eq "$rc" 0 "read after the failure ($out $err)"
assert_no_match "$out" "failed" "read after the failure"
alive "$recorder_pid" || fail "the recorder exited"
run powercut mark --control "$ctl" after
# a mark cannot be made durable either
assert_eq "$rc" 2 "mark after the failure ($err)"
assert_match "$err" "Input/output error" "mark after the failure"

run powercut stop --control "$ctl"
# stop: the END record cannot be made durable, and stop says so
assert_eq "$rc" 2 "stop after the failure ($err)"
assert_match "$err" "Input/output error" "stop after the failure"
wait_recorder_exit

# The log (as the page cache still holds it) reads, without an END record,
# and holds the write and the flush acknowledged before the failure.
read_log
assert_eq "$log_rc" 0 "powercut log after the failure ($log_err)"
dump_log
assert_match "$dump" $'\n1 [0-9.]+ [0-9]+ flush' "the acknowledged flush is record 1"
assert_match "$dump" '^0 [0-9.]+ [0-9]+ write offset=0 length=65536' "the acknowledged write is record 0"
assert_no_match "$dump" "offset=131072" "the refused write is not in the log"
assert_no_match "$dump" " mark " "the refused mark is not in the log"
echo "log disk EIO: flush refused, later requests refused, acknowledged records kept"

# An export to a file on the failing disk: the data goes to the page cache,
# but fsync cannot make it durable, and export says so, in one line.
touch "$tmp/trigger"
run powercut log --export dm-log-writes "$log" "$tmp/logfs/out.dm"
rm "$tmp/trigger"
assert_eq "$rc" 2 "export to a file whose fsync fails ($err)"
assert_eq "$(wc -l <<<"$err")" 1 "export to a file whose fsync fails: one line ($err)"
assert_match "$err" "^powercut log: $tmp/logfs/out.dm: fsync: Input/output error\$" \
  "export to a file whose fsync fails"
echo "export on the failing disk: $err"
