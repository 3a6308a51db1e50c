#!/usr/bin/env bash
# test-explore-reproduce.sh: a failure explore found on XFS reproduces
# with its own reproduce line.  XFS's syncfs bug (contrib/known-bugs/
# xfs-syncfs-no-flush.sh, not fixed in this machine's kernel): an
# overwrite in place of f0, left in the page cache, then a new file and
# its fsync, which forces the log with f0's timestamps in it, leaves f0's
# data to the end's syncfs, which then has no log to force and flushes
# nothing.
# Explore records each workload from a base image that has the setup
# already; its failure script does the setup only on a filesystem without
# it, so that the reproduce line (from that base image) runs the very
# steps explore ran, and fails again, each time.  Run on a fresh
# filesystem instead, the script makes the setup itself.  In a qemu guest
# (run --attach vm --base), from the same base image, it fails again too.
source "$top_srcdir/tests/functions.sh"
requires_root
requires nbdfuse losetup mkfs.xfs xfs_io setfattr fusermount3
T=$(( T * 2 ))
export TMPDIR=$tmp/scratch
mkdir "$TMPDIR"
cd "$tmp"

run powercut explore --seq 2 --only 'write.start f0 none; creat f0 fsync' --config xfs --out x --quiet
[ -f x/failures/1.sh ] || {
  # this kernel flushes in syncfs: the bug is fixed, there is nothing to
  # reproduce (the known-bug script says the same in test-known-bugs.sh)
  assert_eq "$rc" 0 "explore without a failure ($out $err)"
  echo "$0: test skipped: XFS's syncfs flushes on $(uname -r)"; exit 77
}
assert_eq "$rc" 1 "explore found the failure ($err)"
assert_match "$(cat x/failures/1.sh)" '#   found: +durable-lost \(a broken promise\)' "a broken promise"
repro=$(sed -n 's/^#   reproduce: *//p' x/failures/1.sh)
assert_match "$repro" "^powercut run --config 'xfs' --base $tmp/x/bases/c0.img --settle 0 -- $tmp/x/failures/1.sh\$" "its command"
# the steps explore ran, no more: the setup skipped on the base image
assert_match "$(cat x/failures/1.sh)" "if \[ ! -d d0/n \]; then
mkdir d0 d1 d0/n" "the setup, guarded"
for i in 1 2 3; do
  eval "run ${repro/powercut run/powercut run --quiet --out r$i}"
  assert_eq "$rc" 1 "the reproduce line fails again, run $i ($err)"
  assert_match "$(cat r$i/report.txt)" "durable-lost" "the same verdict, run $i"
  calls=$(powercut log --dump r$i/powercut.log | grep ' event exit ')
  assert_match "$calls" 'pwrite64\(3</f0>' "the overwrite traced, run $i"
  assert_no_match "$calls" 'mkdir\(' "no setup on the base image, run $i"
done
# alone, on a fresh filesystem: the setup made by the script itself
run powercut run --quiet --out fresh --config xfs --settle 0 -- "$tmp/x/failures/1.sh"
assert_ne "$rc" 2 "the failure script on a fresh filesystem ($err)"
assert_match "$(powercut log --dump fresh/powercut.log | grep ' event exit ')" 'mkdir\("d0/n"' "the setup made"

# in a qemu guest of another kernel (Debian's, which has the same bug):
# the device starts as the same base image, the guest mounts it as it is
# and runs the very steps explore ran, judged by its own kernel
if command -v qemu-system-x86_64 >/dev/null && ls /boot/vmlinuz-* >/dev/null 2>&1 &&
   { [ -x /usr/sbin/nbd-client ] || [ -x /sbin/nbd-client ]; } &&
   { [ -x /bin/busybox ] || [ -x /usr/bin/busybox ]; }; then
  T=$(( T * 3 ))     # a guest under TCG is slow
  eval "run ${repro/powercut run/powercut run --quiet --out g --attach vm --program xfs_io --program setfattr --judge guest}"
  assert_eq "$rc" 1 "the reproduce line in a guest fails again ($err)"
  assert_match "$(cat g/report.txt)" "durable-lost" "the same verdict in a guest"
  assert_match "$(cat g/report.txt)" "judged by the guest's kernel" "judged by the guest's kernel"
  calls=$(powercut log --dump g/powercut.log | grep ' event exit ')
  assert_match "$calls" 'pwrite64\(3</f0>' "the overwrite traced in the guest"
  assert_no_match "$calls" 'mkdir\(' "no setup on the base image in the guest"
fi
