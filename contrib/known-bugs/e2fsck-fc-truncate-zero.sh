#!/bin/sh
# bug:      e2fsck's replay of ext4 fast commits turns a file truncated to
#           zero and fdatasync'd into an inode whose extent tree maps
#           2^31 blocks; e2fsck -fn of what its replay left runs for
#           minutes, and e2fsck -fy clears the inode: the file, durable
#           and empty, is gone.  A mount (the kernel's replay) of the same
#           bytes keeps it, empty.  Shown as recovery-differs: the two
#           recoveries of one state disagree.
# found by: powercut explore --seq 1 --config "ext4 mkfs='-b 4096 -O
#           fast_commit'" --judge both (truncate.zero d0/f0 fdatasync),
#           2026-12-07; this is its smallest form
# fixed by: not fixed in e2fsprogs 1.47.0 (Debian 12)
# run:      --config ext4 --mkfs-opts "-b 4096 -O fast_commit" --judge both
set -e
cd "$POWERCUT_MNT"
xfs_io -f -c "pwrite -S 0x5a 0 16384" f0 >/dev/null
sync
truncate -s 0 f0
xfs_io -c fdatasync f0
