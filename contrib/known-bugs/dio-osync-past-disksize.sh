#!/bin/sh
# bug:      an O_DIRECT|O_SYNC write inside the file's size but past its
#           size on disk (a buffered write further on still delayed) did
#           not update the size on disk: once the journal committed, a
#           crash found the file with blocks and size 0, the synced write
#           lost (found again by CrashMonkey)
# fixed by: 45d8ec4d9fd5 "ext4: update i_disksize if direct write past
#           ondisk size" (Eryu Guan, 2018; Linux 4.16 by its date)
# xfstests: generic/475 (now and then)
# run:      --config ext4
set -e
cd "$POWERCUT_MNT"
: >f
sync
# delayed: the size in memory is 20 KiB, on disk still 0
xfs_io -c "pwrite -S 0x44 16384 4096" f >/dev/null
# synced by O_SYNC: its 4 KiB and a size of at least 4 KiB are promised
xfs_io -d -s -c "pwrite -S 0x55 0 4096" f >/dev/null
# past the journal's commit interval, before writeback
sleep 6
