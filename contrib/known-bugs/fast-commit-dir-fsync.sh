#!/bin/sh
# bug:      with fast_commit, an fsync of a directory no longer forced a
#           full commit, and fast commits do not track directories: hard
#           links added to a directory, the directory fsynced, a crash
#           left e2fsck's "Directories count wrong" and the links' fate
#           open (6.4-rc1 to rc4 only)
# fixed by: 1077b2d53ef5 "ext4: fix fsync for non-directories" (Jan Kara,
#           2023; Linux 6.4)
# xfstests: generic/065, generic/535
# run:      --config ext4 --mkfs-opts "-O fast_commit"
set -e
cd "$POWERCUT_MNT"
mkdir -p d/sub
xfs_io -f -c "pwrite -S 0x71 0 8192" a >/dev/null
xfs_io -f -c "pwrite -S 0x72 0 8192" d/sub/b >/dev/null
sync
ln a d/a1
ln a d/a2
ln d/sub/b d/b1
mkdir d/new
sync d
