#!/bin/sh
# bug:      XFS's syncfs(2) (and sync(2)) returns before the data it wrote
#           back is durable when its log has nothing new to force: an
#           overwrite in place whose timestamps an earlier log force (here
#           the directory's fsync, for another file) already made durable
#           is written by syncfs, and no cache flush follows it.
#           xfs_fs_sync_fs() only forces the log (a clean log: no I/O, no
#           flush), and sync_filesystem() ends with sync_blockdev(), which
#           writes the device's page cache but flushes nothing; an fsync of
#           the file would flush (xfs_file_fsync() issues the flush when the
#           log force did not).  Linux documents that syncfs() gives the
#           guarantees of fsync() on every file of the filesystem.  ext4
#           (ext4_sync_fs() flushes when no commit did) and btrfs keep it.
# found by: powercut explore --seq 1 --config xfs (falloc.punch.straddle:
#           the zeroed tail of a punched block, written by the end's
#           syncfs), 2026-12-06; this is its smallest form
# fixed by: not fixed as of Linux 6.18.44
# run:      --config xfs
set -e
cd "$POWERCUT_MNT"
xfs_io -f -c "pwrite -S 0x5a 0 16384" f >/dev/null
sync
sleep 1
# an overwrite in place: its timestamps go into XFS's log, its data stays
# in the page cache
xfs_io -c "pwrite -S 0x11 0 4096" f >/dev/null
# another change, and the directory's fsync: the log is forced, f's
# timestamps with it, f's data not
touch g
sync .
# syncfs: f's data written back, the log clean, no flush
sync -f f
