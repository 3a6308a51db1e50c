#!/bin/sh
# bug:      a rename of a file fsynced earlier logged its directory but
#           skipped the inodes of the directory's new entries, and the
#           directory's next fsync, logging only entries added since,
#           never logged them either: a crash after that fsync returned
#           lost a new subdirectory the fsync promised (since the
#           incremental directory logging of dc2872247ec0)
# fixed by: 5630f7557de6 "btrfs: do not skip logging new dentries when
#           logging a new name" (Filipe Manana, 2025; Linux 6.18 by its
#           date; in 6.1.y)
# xfstests: generic/785
# run:      --config btrfs
set -e
cd "$POWERCUT_MNT"
: >file1
sync
# file1 fsynced: it is in the log
xfs_io -c "pwrite -S 0xab 0 1000" -c fsync file1 >/dev/null
mkdir dir
: >dir/foo
# the rename logs file1's new name and the root, skipping "dir"
mv file1 file2
# the root's fsync: "dir" and "file2" are promised
sync .
