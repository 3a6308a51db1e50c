#!/usr/bin/env bash
# test-record-ext4-fuse.sh: a kernel-mounted ext4 on loop over nbdfuse records writes, flushes and trims from several connections, with marks in order and a clean end.
. "${top_srcdir:-$(dirname "$0")/..}/tests/functions.sh"
requires_root
requires nbdfuse losetup mkfs.ext4 mount umount fusermount3 fstrim

start_recorder --size 256M

# Attach: nbdfuse exposes the export as $tmp/fuse/nbd, a loop device
# makes it a block device.  Each step registers its undoing first; the
# hooks check what is really there, and run in reverse order: umount,
# losetup -d, fusermount3 -u, then the recorder.
mkdir "$tmp/fuse" "$tmp/mnt"
nbdfuse_pid=
# unmount_fuse: fusermount3 -u, retried while the loop device lets go.
unmount_fuse ()
{
  local i
  for (( i = 0; i < 50; i++ )); do
    is_mounted "$tmp/fuse" || return 0
    fusermount3 -u "$tmp/fuse" 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}
stop_nbdfuse ()
{
  unmount_fuse
  [ -z "$nbdfuse_pid" ] || kill "$nbdfuse_pid" 2>/dev/null || true
}
cleanup_fn stop_nbdfuse
timeout "$T" nbdfuse -P "$tmp/nbdfuse.pid" "$tmp/fuse" --unix "$sock" &
nbdfuse_pid=$!
nbdfuse_ready () { [ -s "$tmp/nbdfuse.pid" ] || { alive "$nbdfuse_pid" || fail "nbdfuse exited"; false; }; }
wait_until "$T" nbdfuse_ready

loop=
detach_loop () { [ -z "$loop" ] || losetup -d "$loop"; }
cleanup_fn detach_loop
loop=$(losetup -f --show "$tmp/fuse/nbd")
# losetup attached a loop device
assert_match "$loop" '^/dev/loop[0-9]+$' "losetup -f --show"

umount_mnt () { ! is_mounted "$tmp/mnt" || timeout 60 umount "$tmp/mnt" || umount -l "$tmp/mnt"; }
cleanup_fn umount_mnt
run mkfs.ext4 -q -F -b 4096 -E lazy_itable_init=0,lazy_journal_init=0 "$loop"
# mkfs.ext4 makes a filesystem on it
assert_eq "$rc" 0 "mkfs.ext4: exit status (stderr: $err)"
mount "$loop" "$tmp/mnt"

run powercut mark --control "$ctl" --manifest "$tmp/mnt" --sync after-mkfs
# the first mark goes in
assert_eq "$rc" 0 "powercut mark after-mkfs: exit status (stderr: $err)"

# The workload: files, a directory, a symlink; then delete one and trim.
echo hello >"$tmp/mnt/small"
head -c 4M /dev/urandom >"$tmp/mnt/big"
mkdir "$tmp/mnt/dir"
head -c 100K /dev/urandom >"$tmp/mnt/dir/medium"
ln -s dir/medium "$tmp/mnt/link"
sync -f "$tmp/mnt"
rm "$tmp/mnt/big"
sync -f "$tmp/mnt"
run fstrim "$tmp/mnt"
# fstrim trims the freed space
assert_eq "$rc" 0 "fstrim: exit status (stderr: $err)"
npaths=$(find "$tmp/mnt" -mindepth 1 | wc -l)
run powercut mark --control "$ctl" --manifest "$tmp/mnt" --sync files-written
# the second mark goes in
assert_eq "$rc" 0 "powercut mark files-written: exit status (stderr: $err)"

# Detach, in order, then stop.
umount "$tmp/mnt"
losetup -d "$loop" && loop=
unmount_fuse || fail "fusermount3 -u $tmp/fuse failed"
st=0; wait "$nbdfuse_pid" || st=$?; nbdfuse_pid=
# nbdfuse exits cleanly once unmounted
assert_eq "$st" 0 "nbdfuse exit status"
stop_recorder

read_log
# the log reads
assert_eq "$log_rc" 0 "powercut log: exit status (stderr: $log_err)"
# the kernel's writes are there
assert_ge "$(count write)" 10 "write records"
# its flushes (jbd2 commits, syncfs)
assert_ge "$(count flush)" 2 "flush records"
# and its trims (mkfs, fstrim)
assert_ge "$(count trim)" 1 "trim records"
# write-zeroes may or may not come (loop turns zeroing into fallocate): a count either way
assert_match "$(count write-zeroes)" '^[0-9]+$' "write-zeroes records"
# nbdfuse opens 4 connections with multi-conn (libnbd 1.14 sends requests over 3 of them)
assert_ge "$(field connections)" 2 "connections"
dump_log
# requests really came over several connections
assert_ge "$(awk '!/^#/ && $3 > 0 { c[$3] = 1 } END { print length(c) }' <<<"$dump")" 2 "connections that sent requests"
# the marks, in order, with their names and paths
assert_eq "$(sed -n 's/^  record [0-9]* at [0-9.]* s: //p' <<<"$summary" | tr '\n' ';')" "after-mkfs (1 path, 0 durable, synced);files-written ($npaths paths, 0 durable, synced);" "marks"
# between the marks: the workload's writes, flushes and trims
assert_eq "$(awk '/ mark name=after-mkfs/ { on = 1; next } / mark name=files-written/ { on = 0 } on { t[$4] = 1 } END { print t["write"] + 0, t["flush"] + 0, t["trim"] + 0 }' <<<"$dump")" "1 1 1" "writes, flushes and trims between the marks"
# the log ends clean
assert_eq "$(field end)" "clean (stopped)" "end"
# nothing is left attached
assert_eq "$(is_mounted "$tmp/mnt" || echo no) $(is_mounted "$tmp/fuse" || echo no)" "no no" "mounts left"
