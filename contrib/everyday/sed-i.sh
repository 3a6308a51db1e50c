#!/bin/sh
# sed-i.sh: GNU sed -i edits a synced configuration file: it writes a
# temporary file beside it and renames it over the file, with no fsync.
# (Scenarios are run by run.sh, each as: powercut run --config CONFIG
# --out DIR -- ./NAME.sh; they run in the mounted filesystem, sync a
# version 1, let the program update it, then idle EVERYDAY_IDLE seconds,
# 7 by default, as a machine that keeps running would.)
set -eu
cd "$POWERCUT_MNT"
mkdir etc
printf 'name = one\nsize = 1\n' > etc/app.conf
sync
sed -i 's/one/two/; s/size = 1/size = 2/' etc/app.conf
sleep "${EVERYDAY_IDLE:-7}"
