#!/usr/bin/env bash
# test-replay-extjournal.sh: ext4 with its journal on a second device, one
# power cut for both.  Two recorders (fs and jnl, one directory: a device
# set), each attached through nbdfuse and a loop device; mke2fs makes jnl
# an external journal and fs an ext4 that uses it; the kernel mounts it
# (default options) and a workload writes, renames, fsyncs and deletes.
# Then at every flush and FUA record of either device after mkfs,
# "powercut replay DIR --at NAME:N" builds both images of that instant;
# e2fsck recovers fs with the journal of that same instant, and must find
# it clean.
source "$top_srcdir/tests/functions.sh"
requires_root
requires nbdfuse losetup mkfs.ext4 mke2fs e2fsck fusermount3 python3

set_dir=$tmp/set
mnt=$tmp/mnt
mkdir "$set_dir" "$mnt"
declare -A pid fuse_pid loopdev
stop_all () {
  local d i
  mountpoint -q "$mnt" && { timeout "$T" umount "$mnt" || umount -l "$mnt"; }
  for d in fs jnl; do
    [ -z "${loopdev[$d]}" ] || losetup -d "${loopdev[$d]}" 2>/dev/null || true
    for (( i = 0; i < 50; i++ )); do
      mountpoint -q "$tmp/fuse-$d" || break
      fusermount3 -u "$tmp/fuse-$d" 2>/dev/null && break
      sleep 0.1
    done
    [ -z "${fuse_pid[$d]}" ] || ! alive "${fuse_pid[$d]}" || kill "${fuse_pid[$d]}" 2>/dev/null || true
    [ -z "${pid[$d]}" ] || ! alive "${pid[$d]}" || kill -TERM "${pid[$d]}" 2>/dev/null || true
  done
  return 0
}
cleanup_fn stop_all

for d in fs jnl; do
  size=32M
  [ "$d" = jnl ] && size=8M
  run powercut record --log "$set_dir/$d.pclog" --socket "$tmp/$d.sock" \
      --control "$tmp/$d.ctl" --pidfile "$tmp/$d.pid" --size "$size"
  assert_eq "$rc" 0 "powercut record $d (stderr: $err)"
  pid[$d]=$(cat "$tmp/$d.pid")
  mkdir "$tmp/fuse-$d"
  timeout "$T" nbdfuse -P "$tmp/fuse-$d.pid" "$tmp/fuse-$d" --unix "$tmp/$d.sock" &
  fuse_pid[$d]=$!
  wait_until "$T" test -s "$tmp/fuse-$d.pid"
  loopdev[$d]=$(timeout "$T" losetup -f --show "$tmp/fuse-$d/nbd")
  assert_match "${loopdev[$d]}" '^/dev/loop[0-9]+$' "losetup $d"
done

run mke2fs -q -F -O journal_dev -b 4096 "${loopdev[jnl]}"
assert_eq "$rc" 0 "mke2fs journal_dev (stderr: $err)"
run mkfs.ext4 -q -F -b 4096 -E lazy_itable_init=0 -J device="${loopdev[jnl]}" "${loopdev[fs]}"
assert_eq "$rc" 0 "mkfs.ext4 -J device= (stderr: $err)"
timeout "$T" mount -o journal_path="${loopdev[jnl]}" "${loopdev[fs]}" "$mnt" ||
  fail "mount with the external journal"
for d in fs jnl; do
  run powercut mark --control "$tmp/$d.ctl" mkfs
  assert_eq "$rc" 0 "mark mkfs on $d (stderr: $err)"
done

# The workload: files written and fsynced, renamed over, deleted.
for i in $(seq 0 11); do
  head -c $(( (i + 1) * 3000 )) /dev/urandom >"$mnt/f$i.tmp"
  sync "$mnt/f$i.tmp"
  mv "$mnt/f$i.tmp" "$mnt/f$(( i % 4 ))"
  [ $(( i % 3 )) != 2 ] || rm -f "$mnt/f$(( (i + 1) % 4 ))"
  mkdir -p "$mnt/d$(( i % 2 ))/e$i"
done
sync
timeout "$T" umount "$mnt" || fail "umount"
for d in fs jnl; do
  losetup -d "${loopdev[$d]}"; loopdev[$d]=
done
stop_all
for d in fs jnl; do
  wait_until "$T" eval "! alive ${pid[$d]}"
done

# Every flush and FUA record after mkfs of either device: both images of
# that instant, recovered together and checked.
points=$(for d in fs jnl; do
  powercut log --dump "$set_dir/$d.pclog" |
    awk -v d="$d" '$4 == "mark" && $5 == "name=mkfs" { on = 1 }
                   on && ($4 == "flush" || / fua/) { print d ":" $1 }'
done)
n=0 recovered=0
for p in $points; do
  run powercut replay "$set_dir" --at "$p" -o "$tmp/out"
  assert_eq "$rc" 0 "replay --at $p (stderr: $err)"
  # recovery with that instant's journal, as a reboot would
  run e2fsck -y -E journal_only -j "$tmp/out/jnl.img" "$tmp/out/fs.img"
  [ "$rc" -le 1 ] || fail "$p: e2fsck -E journal_only: exit $rc ($out $err)"
  ! grep -q 'recovering journal' <<<"$out$err" || recovered=$((recovered + 1))
  run e2fsck -fn -j "$tmp/out/jnl.img" "$tmp/out/fs.img"
  assert_eq "$rc" 0 "$p: e2fsck -fn after recovery ($out $err)"
  n=$((n + 1))
done
# powercut check of the set says, in one line, what it does not do yet
run powercut check "$set_dir"
assert_eq "$rc" 2 "check of a set with an external journal: exit status"
assert_match "$err" 'holds an ext3/ext4 external journal' "check of a set with an external journal: message"
# the instants were checked, on both devices' flushes
echo "instants: $n, of which $recovered replayed transactions from the journal"
assert_ge "$n" 20 "instants checked"
# states where the journal of that instant held what the filesystem needed
assert_ge "$recovered" 5 "instants recovered from the external journal"
assert_match "$points" 'fs:' "instants at the fs device's flushes"
assert_match "$points" 'jnl:' "instants at the journal device's flushes"
