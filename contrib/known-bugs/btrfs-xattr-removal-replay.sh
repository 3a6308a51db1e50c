#!/bin/sh
# bug:      log replay did not delete the xattrs that a replayed inode
#           had in the committed tree and no longer had in the log: an
#           xattr removed and then fsynced came back, with its old value,
#           after a crash right after the fsync returned
# fixed by: 4f764e515361 "Btrfs: remove deleted xattrs on fsync log
#           replay" (Filipe Manana, 2015; Linux 4.1 by its date)
# xfstests: generic/066
# run:      --config btrfs --judge guest --program setfattr
# (setfattr: a guest's busybox may lack it; explore hands it to the guest
# the same way)
set -e
cd "$POWERCUT_MNT"
# a file with the attribute, committed
xfs_io -f -c "pwrite -S 0x5a 0 16384" f0 >/dev/null
setfattr -n user.pc -v setup f0
sync
# the removal, then the file's fsync: the attribute's absence is promised
setfattr -x user.pc f0
xfs_io -c fsync f0
