#!/bin/sh
# bug:      after the direct I/O path moved to iomap, an O_SYNC direct
#           write past the end returned before the new size was durable:
#           a crash found the file shorter than the write that returned
# fixed by: 91562895f803 "ext4: properly sync file size update after
#           O_SYNC direct IO" (Jan Kara, 2023; Linux 6.7)
# xfstests: generic/737
# run:      --config ext4
set -e
cd "$POWERCUT_MNT"
xfs_io -f -d -s -c "pwrite -S 0x5a -b 1048576 0 1048576" f >/dev/null
# the same through the page cache, O_SYNC
xfs_io -f -s -c "pwrite -S 0x5b -b 1048576 0 1048576" g >/dev/null
