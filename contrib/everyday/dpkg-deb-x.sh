#!/bin/sh
# dpkg-deb-x.sh: dpkg-deb -x extracts a package's 1.1 over its 1.0,
# extracted and synced: tar, which it runs, deletes each old file and
# writes the new one under its name, with no fsync.
set -eu
# the packages are built outside the filesystem (in TMPDIR, /tmp by
# default): what is checked is what the program updates
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
cd "$POWERCUT_MNT"
mkpkg () {
  d=$build/hello-$1
  mkdir -p "$d/DEBIAN" "$d/etc/hello" "$d/usr/share/hello"
  printf 'Package: hello-everyday\nVersion: %s\nArchitecture: all\nMaintainer: everyday <everyday@example.org>\nDescription: a package of the everyday scenarios\n' \
    "$1" > "$d/DEBIAN/control"
  printf 'greeting = hello %s\n' "$1" > "$d/etc/hello/hello.conf"
  printf 'data of version %s\n' "$1" > "$d/usr/share/hello/data"
  dpkg-deb --build --root-owner-group "$d" "$build/hello_$1.deb" >/dev/null
}
mkpkg 1.0
mkpkg 1.1
dpkg-deb -x "$build/hello_1.0.deb" root
sync
dpkg-deb -x "$build/hello_1.1.deb" root
sleep "${EVERYDAY_IDLE:-7}"
