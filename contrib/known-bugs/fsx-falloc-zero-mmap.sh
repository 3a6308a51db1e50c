#!/bin/sh
# bug:      a mix of buffered writes, fallocate, COLLAPSE_RANGE,
#           ZERO_RANGE|KEEP_SIZE and a write through mmap, never synced: a
#           crash at some moment left an extent tree e2fsck rejects (an
#           extent past the allowed end, i_blocks or i_size wrong)
# fixed by: 51e3ae81ec58 "ext4: fix interaction between i_size, fallocate,
#           and delalloc after a crash" (Linux 4.15 by its date) and
#           801674f34ecf "ext4: do not zeroout extents beyond i_disksize"
#           (Jan Kara, 2020; Linux 5.7)
# xfstests: generic/456 (reduced from fsx runs on dm-log-writes); the
#           offsets here are of that shape, not its exact ones
# run:      --config ext4
set -e
cd "$POWERCUT_MNT"
xfs_io -f \
  -c "pwrite -S 0x61 79872 56320" \
  -c "falloc 45056 46080" \
  -c "fcollapse 114688 16384" \
  -c "pwrite -S 0x62 254976 6656" \
  -c "fzero -k 135168 27648" \
  -c "mmap -rw 0 270336" -c "mwrite -S 0x63 137216 10240" -c "munmap" \
  t >/dev/null
