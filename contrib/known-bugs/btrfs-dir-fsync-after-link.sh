#!/bin/sh
# bug:      a hard link to a file fsynced earlier logged the file's parent
#           directories and marked them as synced to the log; an fsync of
#           such a directory then returned without syncing the log: a
#           crash after fsync of the root returned lost the new directory
#           the root's fsync promised (since 130341be7ffa; the fix
#           is marked for 6.1+)
# fixed by: bfe3d755ef7c "btrfs: do not update last_log_commit when
#           logging inode due to a new name" (Filipe Manana, 2025; Linux
#           6.18 by its date; in 6.1.y)
# xfstests: generic/782
# run:      --config btrfs
set -e
cd "$POWERCUT_MNT"
: >foo
sync
mkdir dir
# foo fsynced: it is in the log, and the log is synced
xfs_io -c "pwrite -S 0xab 0 64K" -c fsync foo >/dev/null
# a new name for foo logs foo and its parents, the root among them
ln foo dir/bar
# the root's fsync: its entry "dir" is promised
sync .
