#!/bin/sh
# bug:      fdatasync after PUNCH_HOLE, ZERO_RANGE, COLLAPSE_RANGE or
#           INSERT_RANGE had nothing to wait for (those calls did not note
#           that the file's data changed): a crash after fdatasync returned
#           could find the old data where the hole or zeros were
# fixed by: 67a7d5f561f4 "ext4: fix fdatasync(2) after extent manipulation
#           operations" (Jan Kara, 2017; Linux 4.12)
# xfstests: generic/392
# run:      --config ext4
set -e
cd "$POWERCUT_MNT"
# four files of 4 MiB and 8 KiB, synced; then on each one operation
# followed by fdatasync
for f in punch zero collapse insert; do
  xfs_io -f -c "pwrite -S 0xcc 0 4202496" -c fsync $f >/dev/null
done
xfs_io -c "fpunch 4194304 4096" -c fdatasync punch
xfs_io -c "fzero -k 4190208 8192" -c fdatasync zero
xfs_io -c "fcollapse 1048576 65536" -c fdatasync collapse
xfs_io -c "finsert 1048576 65536" -c fdatasync insert
