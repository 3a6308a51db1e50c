#!/bin/sh
# cp.sh: cp copies a new version over a synced file: it opens the file
# with O_TRUNC and writes the new data into it, with no fsync.
set -eu
cd "$POWERCUT_MNT"
mkdir etc new
printf 'name = one\nsize = 1\n' > etc/app.conf
printf 'name = two\nsize = 2\ncolour = blue\n' > new/app.conf
sync
cp new/app.conf etc/app.conf
sleep "${EVERYDAY_IDLE:-7}"
