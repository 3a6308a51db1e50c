#!/bin/sh
# mv.sh: mv moves a new version from another filesystem (a folder in
# TMPDIR, /tmp by default) over a synced file: rename(2) cannot cross
# filesystems, so mv deletes the file, writes a new one under its name
# and deletes the source, with no fsync.
set -eu
src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT
cd "$POWERCUT_MNT"
mkdir etc
printf 'name = one\nsize = 1\n' > etc/app.conf
printf 'name = two\nsize = 2\ncolour = blue\n' > "$src/app.conf"
sync
mv "$src/app.conf" etc/app.conf
sleep "${EVERYDAY_IDLE:-7}"
