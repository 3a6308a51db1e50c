#!/bin/sh
# python-replace.sh: a Python program rewrites a synced file the way many
# do: the new version written to a temporary file, then os.replace() over
# the file, with no fsync.
set -eu
cd "$POWERCUT_MNT"
mkdir etc
printf 'name = one\nsize = 1\n' > etc/app.conf
sync
python3 - <<'PY'
import os
with open("etc/app.conf") as f:
    text = f.read().replace("one", "two").replace("size = 1", "size = 2")
with open("etc/app.conf.tmp", "w") as f:
    f.write(text)
os.replace("etc/app.conf.tmp", "etc/app.conf")
PY
sleep "${EVERYDAY_IDLE:-7}"
