#!/bin/sh
# bug:      with fast_commit, ZERO_RANGE over written blocks (turning them
#           unwritten) was not tracked: an fsync's fast commit missed it,
#           and the range could come back with its old data
# fixed by: 5e4d0eba1cca "ext4: fix fast commit may miss tracking range
#           for FALLOC_FL_ZERO_RANGE" (Xin Yin, 2022; Linux 5.17)
# xfstests: none merged (a test was proposed in 2022)
# run:      --config ext4 --mkfs-opts "-O fast_commit"
set -e
cd "$POWERCUT_MNT"
xfs_io -f -c "pwrite -S 0x81 0 409600" -c fsync t1 >/dev/null
xfs_io -c "fzero -k 163840 81920" -c fsync t1
