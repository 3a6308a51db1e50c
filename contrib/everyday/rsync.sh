#!/bin/sh
# rsync.sh: rsync -a copies a new version over a synced file: it writes
# a temporary file beside it and renames it over the file, with no fsync.
set -eu
cd "$POWERCUT_MNT"
mkdir etc new
printf 'name = one\nsize = 1\n' > etc/app.conf
printf 'name = two\nsize = 2\ncolour = blue\n' > new/app.conf
sync
rsync -a new/ etc/
sleep "${EVERYDAY_IDLE:-7}"
