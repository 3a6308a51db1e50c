#!/usr/bin/env bash
# test-apps-raid1.sh: md RAID-1 over two recorded disks, one power cut
# (contrib/apps/raid1, through powercut vm: the host kernel may have no md
# driver).  The guest kernel's md writes both legs through its own NBD
# client; at every instant of the set (powercut log --instants) a second
# guest rebuilds both legs, assembles them with mdadm, resyncs, recovers
# and checks the ext4 on the array and compares the fsync'ed files: every
# instant is ok, and some instants had legs that differ.  Without fsync
# (the marks claiming durability the workload never asked for) the same
# check finds files lost: the checker can fail.
# all its work is in qemu guests: it takes no lock, and runs beside others
test_parallel=yes
source "$top_srcdir/tests/functions.sh"
requires_root
requires qemu-system-x86_64 mdadm
ls /boot/vmlinuz-* >/dev/null 2>&1 || { echo "$0: test skipped: no kernel in /boot"; exit 77; }
[ -x /usr/sbin/nbd-client ] || [ -x /sbin/nbd-client ] || { echo "$0: test skipped: no nbd-client"; exit 77; }
[ -x /bin/busybox ] || [ -x /usr/bin/busybox ] || { echo "$0: test skipped: no busybox"; exit 77; }
T=1800                          # two guests under TCG, a few seconds an instant
export POWERCUT
app=$top_srcdir/contrib/apps/raid1

# 16 MiB disks and few files: each instant is a replay and an mdadm
# assembly under TCG, and there are over 30 of them
run env RAID1_SIZE=16M RAID1_FILES=2 "$app/run.sh" "$tmp/ok"
assert_eq "$rc" 0 "fsync'ed files on RAID-1: every instant ok ($err; $(tail -3 "$tmp/ok/check.txt" 2>/dev/null))"
assert_eq "$(ls "$tmp/ok/rec" | grep -c '\.pclog$')" 2 "two legs, one set"
# every instant from the mark "mkfs" on was checked, one line each
n=$(grep -c ' ok$' "$tmp/ok/check.txt")
want=$(powercut log --instants "$tmp/ok/rec" | grep -vc ' a=[0-9]*/- ')
assert_eq "$n" "$want" "one ok line per instant from mkfs on"
[ "$n" -ge 10 ] || fail "only $n instants"
grep -q '^summary: .* 0 corrupt, 0 lost$' "$tmp/ok/check.txt" || fail "summary: $(tail -1 "$tmp/ok/check.txt")"
# the array assembled at each, both legs or degraded, and e2fsck found it clean
[ "$(grep -c ' array=\[[U_]*\] fsck=clean ' "$tmp/ok/check.txt")" = "$n" ] || fail "assembly or fsck"
differ=$(grep -c ' legs=differ ' "$tmp/ok/check.txt" || true)

run env RAID1_SIZE=16M RAID1_FILES=1 RAID1_FSYNC=no "$app/run.sh" "$tmp/nosync"
assert_eq "$rc" 1 "without fsync some instant loses a file ($err; $(tail -3 "$tmp/nosync/check.txt" 2>/dev/null))"
grep -q ' lost$' "$tmp/nosync/check.txt" || fail "no instant reported lost"
grep -q '^summary: .* 0 corrupt, [1-9][0-9]* lost$' "$tmp/nosync/check.txt" ||
  fail "summary: $(tail -1 "$tmp/nosync/check.txt")"
differ=$(( differ + $(grep -c ' legs=differ ' "$tmp/nosync/check.txt" || true) ))
# md writes the legs over two connections: a flush of one finds the other
# behind (seen at about one instant in five)
[ "$differ" -ge 1 ] || fail "no instant with the legs differing"
