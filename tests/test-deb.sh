#!/usr/bin/env bash
# test-deb.sh: the Debian package.  The tarball's tree (make distdir) is
# built with dpkg-buildpackage -us -uc -b (nocheck: the quick tests its
# build runs are make distcheck's, which CI runs on the same kind of
# optimised build); lintian finds no error in the package; unpacked, it holds
# /usr/bin/powercut, every man page, the docs and contrib's recipes and
# scenarios as examples, and the packaged binary runs: its help, a man
# page rendered, and a check of a golden log.
source "$top_srcdir/tests/functions.sh"
requires dpkg-buildpackage dh lintian fakeroot dpkg-deb man e2fsck
runs_alone                      # a build on both CPUs
T=900
# the package's own make must not take the suite's (MAKEFLAGS carries
# make check's list of tests: the package would run the whole suite)
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES

version=$(sed -n 's/^powercut (\([^)]*\)).*/\1/p;q' "$top_srcdir/debian/changelog")
tree=$tmp/powercut-$version
make -s -C "$top_builddir" distdir distdir="$tree" >"$tmp/distdir.log" 2>&1 || fail "make distdir: $(tail -3 "$tmp/distdir.log")"
[ -f "$tree/debian/rules" ] || fail "the tarball lacks debian/"
(cd "$tree" && DEB_BUILD_OPTIONS="nocheck parallel=2" timeout "$T" dpkg-buildpackage -us -uc -b) \
  >"$tmp/build.log" 2>&1 || fail "dpkg-buildpackage: $(tail -5 "$tmp/build.log")"
deb=$(ls "$tmp"/powercut_"$version"_*.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] || fail "no .deb built"

run lintian --no-tag-display-limit "$deb"
assert_no_match "$out" '^E: ' "lintian: no error ($out)"

dpkg-deb -x "$deb" "$tmp/root" || fail "dpkg-deb -x"
r=$tmp/root
[ -x "$r/usr/bin/powercut" ] || fail "no /usr/bin/powercut"
for m in "$top_srcdir"/man/*.[15]; do
  n=${m##*/}
  [ -f "$r/usr/share/man/man${n##*.}/$n.gz" ] || fail "man page $n is not packaged"
done
[ -x "$r/usr/share/doc/powercut/examples/apps/gdbm/workload.sh" ] || fail "contrib's scenarios are not packaged"
[ -f "$r/usr/share/doc/powercut/examples/everyday/sed-i.sh" ] || fail "contrib's everyday scenarios are not packaged"
[ -f "$r/usr/share/doc/powercut/copyright" ] || fail "no copyright file"

run "$r/usr/bin/powercut" --help
assert_eq "$rc" 0 "the packaged binary runs ($err)"
assert_match "$out" "^usage: powercut COMMAND" "its help"
assert_match "$(MANWIDTH=80 man -l "$r/usr/share/man/man1/powercut-run.1.gz" 2>/dev/null | col -b)" "powercut run" \
  "powercut-run(1) renders"
run "$r/usr/bin/powercut" check "$top_srcdir/tests/golden/rename-fsync/recording.pclog" -q
assert_eq "$rc" 0 "the packaged binary checks a golden log ($out $err)"
