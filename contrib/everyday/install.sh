#!/bin/sh
# install.sh: install(1) puts a new version in place of a synced file:
# it deletes the file and writes a new one under its name, with no fsync.
set -eu
cd "$POWERCUT_MNT"
mkdir etc new
printf 'name = one\nsize = 1\n' > etc/app.conf
printf 'name = two\nsize = 2\ncolour = blue\n' > new/app.conf
sync
install -m 644 new/app.conf etc/app.conf
sleep "${EVERYDAY_IDLE:-7}"
