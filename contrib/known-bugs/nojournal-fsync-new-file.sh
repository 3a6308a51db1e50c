#!/bin/sh
# bug:      without a journal, fsync of a newly made file or directory
#           wrote that inode and its own blocks, not the entry naming it
#           in its parent, nor a new parent's entry in its own parent: a
#           crash after fsync of a new directory returned lost the
#           directory, and with it the names the fsync made durable
# fixed by: 14ece1028b3e "ext4: Make fsync sync new parent directories in
#           no-journal mode" (Frank Mayhar, 2010; Linux 2.6.35 by its date)
# xfstests: none found
# run:      --config ext4 --mkfs-opts "-O ^has_journal"
# powercut counts a name durable at an fsync of its directory, not of the
# file (a file's fsync alone promises no name): here d1/d2's fsync
# promises f's name, and f is reachable only through d2's entry in d1 and
# d1's in the root, which only the fix writes.
set -e
cd "$POWERCUT_MNT"
mkdir -p d1/d2
xfs_io -f -c "pwrite -S 0x93 0 4096" -c fsync d1/d2/f >/dev/null
sync d1/d2
