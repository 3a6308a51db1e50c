#!/bin/sh
# dpkg-i.sh: dpkg --root ROOT -i upgrades a package, installed and synced
# at version 1.0, to 1.1: its files and its conffile unpacked beside the
# old ones as NAME.dpkg-new and renamed over them, its database (status,
# info/*.list ...) rewritten; dpkg fsyncs what it unpacks and its status.
set -eu
# the packages are built outside the filesystem (in TMPDIR, /tmp by
# default): what is checked is what the program updates
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
cd "$POWERCUT_MNT"
# a tiny package of two files, one a conffile, at two versions
mkpkg () {
  d=$build/hello-$1
  mkdir -p "$d/DEBIAN" "$d/etc/hello" "$d/usr/share/hello"
  printf 'Package: hello-everyday\nVersion: %s\nArchitecture: all\nMaintainer: everyday <everyday@example.org>\nDescription: a package of the everyday scenarios\n' \
    "$1" > "$d/DEBIAN/control"
  echo /etc/hello/hello.conf > "$d/DEBIAN/conffiles"
  printf 'greeting = hello %s\n' "$1" > "$d/etc/hello/hello.conf"
  printf 'data of version %s\n' "$1" > "$d/usr/share/hello/data"
  dpkg-deb --build --root-owner-group "$d" "$build/hello_$1.deb" >/dev/null
}
mkpkg 1.0
mkpkg 1.1
# an empty system: dpkg's database under ROOT/var/lib/dpkg
mkdir -p root/var/lib/dpkg/info root/var/lib/dpkg/updates
: > root/var/lib/dpkg/status
dpkg --root="$PWD/root" -i "$build/hello_1.0.deb" >/dev/null
sync
dpkg --root="$PWD/root" -i "$build/hello_1.1.deb" >/dev/null
sleep "${EVERYDAY_IDLE:-7}"
