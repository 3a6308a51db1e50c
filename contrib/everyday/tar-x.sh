#!/bin/sh
# tar-x.sh: GNU tar -x extracts a tree's 1.1 over its 1.0, extracted and
# synced: it deletes each old file and writes the new one under its
# name, with no fsync.
set -eu
# the archives are made outside the filesystem (in TMPDIR, /tmp by
# default): what is checked is what the program updates
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
cd "$POWERCUT_MNT"
mktree () {
  d=$build/app-$1
  mkdir -p "$d/etc" "$d/share"
  printf 'name = app\nversion = %s\n' "$1" > "$d/etc/app.conf"
  printf 'data of version %s\n' "$1" > "$d/share/data"
  tar -cf "$build/app-$1.tar" -C "$d" etc share
}
mktree 1.0
mktree 1.1
mkdir root
tar -xf "$build/app-1.0.tar" -C root
sync
tar -xf "$build/app-1.1.tar" -C root
sleep "${EVERYDAY_IDLE:-7}"
