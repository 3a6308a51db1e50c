#!/bin/sh
# bug:      without the no-holes feature, a hole punched next to an
#           existing hole widened that hole's file extent item but kept
#           its old generation, and a full fsync copies only the items of
#           the running transaction: a crash after fsync returned found
#           the punched ranges holding their old data (5.18 and 5.19)
# fixed by: e6e3dec6c3c2 "btrfs: update generation of hole file extent
#           item when merging holes" (Filipe Manana, 2022; Linux 6.0)
# xfstests: generic/695
# run:      --config btrfs --mkfs-opts "-O ^no-holes"
set -e
cd "$POWERCUT_MNT"
# a hole at [0, 2M), data at [2M, 10M), a hole at [10M, 12M): with
# no-holes off, both holes are file extent items
xfs_io -f -c "truncate 12M" -c "pwrite -S 0xab -b 1048576 2M 8M" f >/dev/null
sync
# each punch touches a hole, whose item is widened (to the left, then to
# the right); the fsync is a full one (the new inode's first)
xfs_io -c "fpunch 2M 2M" -c "fpunch 8M 2M" -c fsync f
