#!/bin/sh
# bug:      without a journal, fsync of a newly made file wrote the file
#           but not its directory entry (nor a new parent directory's): a
#           crash after fsync returned lost the whole file
# fixed by: 14ece1028b3e "ext4: Make fsync sync new parent directories in
#           no-journal mode" (Frank Mayhar, 2010; Linux 2.6.35 by its date)
# xfstests: none found
# run:      --config ext4 --mkfs-opts "-O ^has_journal"
set -e
cd "$POWERCUT_MNT"
mkdir -p dir/new
xfs_io -f -c "pwrite -S 0x91 0 4096" -c fsync dir/new/file >/dev/null
xfs_io -f -c "pwrite -S 0x92 0 4096" -c fsync top >/dev/null
