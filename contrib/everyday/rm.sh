#!/bin/sh
# rm.sh: rm deletes a synced file: nothing is replaced, so nothing that
# was promised can be lost.
set -eu
cd "$POWERCUT_MNT"
mkdir etc
printf 'name = one\nsize = 1\n' > etc/app.conf
printf 'name = old\n' > etc/app.conf.old
sync
rm etc/app.conf.old
sleep "${EVERYDAY_IDLE:-7}"
