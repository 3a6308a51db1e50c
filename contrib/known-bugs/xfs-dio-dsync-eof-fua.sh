#!/bin/sh
# bug:      a direct write with RWF_DSYNC (or O_DSYNC) that reached past
#           EOF into blocks already allocated and written went out as a
#           FUA write, which let iomap skip the sync at completion: the
#           new size, logged at completion, was not forced to the log, and
#           a crash after the write returned found the file at its old
#           size (4.18, with FUA for O_DSYNC direct writes, to 5.4)
# fixed by: 7684e2c4384d "iomap: iomap that extends beyond EOF should be
#           marked dirty" (Dave Chinner, 2019; Linux 5.5)
# xfstests: none found
# run:      --config xfs
# The device must advertise FUA (--attach vm does): without it the write
# is followed by a log force, bug or not.
set -e
cd "$POWERCUT_MNT"
# 8 KiB, then cut to 5000 bytes: the block at 4 KiB stays allocated and
# written, 904 bytes of it inside the file
xfs_io -f -c "pwrite -S 0x11 0 8192" -c fsync -c "truncate 5000" -c fsync f >/dev/null
sync
# 4 KiB at 4 KiB, O_DIRECT and RWF_DSYNC: that range and a size of 8 KiB
# are promised
xfs_io -d -c "pwrite -D -V 1 -S 0x22 4096 4096" f >/dev/null
