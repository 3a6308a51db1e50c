#!/bin/sh
# bug:      e2fsck -p stops ("UNEXPECTED INCONSISTENCY; RUN fsck
#           MANUALLY") on a state a crash of ext4 without a journal
#           leaves, which a second e2fsck -p repairs: a directory entry
#           names an inode past its group's bg_itable_unused, not yet
#           written.  Pass 2 fixes the count (PR_2_INOREF_IN_UNUSED,
#           preen-safe) and plans a restart (E2F_FLAG_RESTART_LATER),
#           and while it skips the unused-inode check for the restart to
#           do, it still runs check_filetype(), against pass 1's maps
#           that skipped the inode: "incorrect filetype (was 1, should be
#           0)", PR_2_BAD_FILETYPE, not preen-safe.  A boot stops for
#           e2fsck by hand.
# found by: powercut explore --seq 2 --config "ext4 mkfs='-O ^has_journal'"
#           (creat f0 fsync.parent; ...: fs-corrupt), 2026-12-07; this is
#           its smallest form
# fixed by: not fixed in e2fsprogs 1.47.0 (Debian 12); unchanged in 1.47.4
# run:      --config ext4 --mkfs-opts "-O ^has_journal"
set -e
cd "$POWERCUT_MNT"
for f in a b c d e f g h; do echo "$f" > "$f"; done
sync
touch new
sync .
