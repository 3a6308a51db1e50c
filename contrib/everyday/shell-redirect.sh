#!/bin/sh
# shell-redirect.sh: the shell's > over a synced file: opened with O_TRUNC
# and written anew, bigger, no fsync.
set -eu
cd "$POWERCUT_MNT"
mkdir etc
printf 'name = one\nsize = 1\n' > etc/app.conf
sync
{ printf 'name = two\nsize = 2\n'; seq 1 2000 | sed 's/^/line /'; } > etc/app.conf
sleep "${EVERYDAY_IDLE:-7}"
