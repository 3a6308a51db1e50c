#!/bin/sh
# sed-i-twice.sh: GNU sed -i twice over a synced file, another file
# written and fsync'd in between: each time a temporary file renamed over
# the file, no fsync of it.
set -eu
cd "$POWERCUT_MNT"
mkdir etc
printf 'name = one\nsize = 1\n' > etc/app.conf
sync
sed -i 's/one/two/' etc/app.conf
printf 'other\n' > etc/other
python3 -c 'import os; os.fsync(os.open("etc/other", os.O_RDONLY))'
sed -i 's/two/three/' etc/app.conf
sleep "${EVERYDAY_IDLE:-7}"
