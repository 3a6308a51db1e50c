#!/bin/sh
# perl-pi.sh: perl -pi edits a synced configuration file: it writes a
# temporary file beside it and renames it over the file (perl 5.28 and
# later), with no fsync.
set -eu
cd "$POWERCUT_MNT"
mkdir etc
printf 'name = one\nsize = 1\n' > etc/app.conf
sync
perl -pi -e 's/one/two/; s/size = 1/size = 2/' etc/app.conf
sleep "${EVERYDAY_IDLE:-7}"
