#!/bin/sh
# bug:      fdatasync after an append that stays inside the file's last,
#           already allocated block did not commit the new size: a crash
#           after fdatasync returned could find the file at its old size
# fixed by: b71fc079b5d8 "ext4: fix fdatasync() for files with only
#           i_size changes" (Jan Kara, 2012; Linux 3.7 by its date)
# xfstests: generic/392 (its appends reach a new block)
# run:      --config ext4
set -e
cd "$POWERCUT_MNT"
# 4 MiB and 1 KiB: the last block is a quarter used
xfs_io -f -c "pwrite -S 0x11 0 4195328" -c fsync f >/dev/null
# 1 KiB more, in that block: only the size changes
xfs_io -c "pwrite -S 0x22 4195328 1024" -c fdatasync f >/dev/null
