#!/bin/sh
# bug:      e2fsck cannot recover an ext4 journal whose fast-commit area
#           holds a fast commit of a transaction that a full commit in the
#           journal has since covered ("e2fsck: Invalid argument while
#           recovering journal"); it then goes on without replaying the
#           journal at all, and the boot's e2fsck -p exits 1 having lost
#           what the committed transactions held: a new file, made durable
#           by fdatasync, is gone.  A mount (the kernel's replay) of the
#           same bytes skips the stale fast commit and keeps the file.
#           Shown as recovery-differs: the two recoveries of one state
#           disagree.
# found by: powercut explore --seq 1 --config "ext4 mkfs='-b 4096 -O
#           fast_commit'" --judge both --skip truncate.zero (60 of 195
#           workloads, each at a crash point after its fast commit and
#           a full commit), 2026-12-08; this is its smallest form
# fixed by: not fixed in e2fsprogs 1.47.0 (Debian 12)
# run:      --config ext4 --mkfs-opts "-b 4096 -O fast_commit" --judge both
set -e
cd "$POWERCUT_MNT"
mkdir d0
touch x
sync
# three times: one pass may see the journal's own commit come first
for i in 1 2 3; do
  touch d0/new$i
  xfs_io -c fdatasync d0/new$i
  # an extended attribute is not fast-commit eligible: its fsync commits
  # the whole transaction, the fast commit's file with it
  setfattr -n user.k -v $i x
  xfs_io -c fsync x
done
