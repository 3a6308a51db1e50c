#!/bin/sh
# rsync-fsync.sh: rsync -a --fsync, as rsync.sh, with the temporary file
# fsync'd before its rename (the folder is not synced).
set -eu
cd "$POWERCUT_MNT"
mkdir etc new
printf 'name = one\nsize = 1\n' > etc/app.conf
printf 'name = two\nsize = 2\ncolour = blue\n' > new/app.conf
sync
rsync -a --fsync new/ etc/
sleep "${EVERYDAY_IDLE:-7}"
