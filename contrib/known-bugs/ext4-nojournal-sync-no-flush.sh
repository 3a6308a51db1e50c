#!/bin/sh
# bug:      ext4 without a journal: sync(2) and syncfs(2) return before
#           the inode table blocks they wrote last are durable.
#           ext4_write_inode() leaves an inode's buffer to "sync(2)" when
#           the writeback is for_sync; ext4_sync_fs() issues its cache
#           flush; only after it does sync(2)'s sync_bdevs() (syncfs's
#           sync_blockdev(), at sync_filesystem()'s end) write those
#           buffers, with no flush after them.  A power cut then keeps the
#           data and not the inode as sync left it: a new file synced with
#           its 16 KiB is found empty, or its blocks read as zeros (the
#           extent still unwritten).  fsync (ext4_fsync_nojournal) flushes
#           last and keeps it.
# found by: powercut explore --seq 2 --config "ext4 mkfs='-O ^has_journal'"
#           (write.append.4096 ... sync, among others), 2026-12-07; this
#           is its smallest form
# fixed by: not fixed as of Linux 6.18.44
# run:      --config ext4 --mkfs-opts "-O ^has_journal"
set -e
cd "$POWERCUT_MNT"
# one file is enough, when the race goes the bug's way (the inode table
# block written again after the flush, and differing from what was
# flushed); six make it every time here
for i in 1 2 3 4 5 6; do
  xfs_io -f -c "pwrite -S 0x5a 0 16384" f$i >/dev/null
  sync
done
