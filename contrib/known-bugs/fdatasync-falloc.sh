#!/bin/sh
# bug:      fallocate, then fdatasync, did not commit the allocation: a
#           crash after fdatasync returned lost the blocks fallocate added
#           (past the end with KEEP_SIZE, and with them the new size
#           without it) (found again by CrashMonkey)
# fixed by: "ext4: fix fdatasync(2) after fallocate(2) operation" (Eryu
#           Guan, December 2017; c894aa97577e by a blame, not confirmed;
#           Linux 4.15 by its date)
# xfstests: generic/468
# run:      --config ext4
# The size fallocate sets (without KEEP_SIZE) is content the oracle
# judges; the blocks KEEP_SIZE adds past the end are not (powercut reads
# contents and sizes, not how many blocks a file has): that half is
# written here for completeness and passes whatever the kernel does.
set -e
cd "$POWERCUT_MNT"
for f in keep grow; do
  xfs_io -f -c "truncate 4202496" -c "pwrite -S 0x33 0 4202496" -c fsync $f >/dev/null
done
xfs_io -c "falloc -k 4202496 1048576" -c fdatasync keep
xfs_io -c "falloc 4202496 1048576" -c fdatasync grow
