#!/bin/sh
# bug:      ext4's fast-commit replay of an rmdir removes the directory's
#           entry but keeps its inode: the fast commit logs the entry's
#           removal (DEL_ENTRY) and no inode of the directory, and the
#           replay leaves it allocated with its links, an unconnected
#           directory that e2fsck -fn of what the mount left calls an
#           error ("Unconnected directory inode ... (was in /d0)").  A
#           filesystem corrupt after a crash that fsync made safe to
#           expect whole.
# found by: powercut's hunt, ext4 fast_commit under --judge both
#           (rmdir f0 none; falloc.plain.inside f0 fsync), 2026-12-08;
#           this is its smallest form
# fixed by: not fixed in Linux 6.18.44
# run:      --config ext4 --mkfs-opts "-b 4096 -O fast_commit" --judge kernel
set -e
cd "$POWERCUT_MNT"
mkdir -p d0/n
xfs_io -f -c "pwrite -S 0x5a 0 16384" f0 >/dev/null
sync
rmdir d0/n
# a fast commit: the rmdir goes into it with the fallocate's inode
xfs_io -c "falloc 4096 4096" -c fsync f0
