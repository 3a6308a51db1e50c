#!/usr/bin/env bash
# test-install.sh: make install DESTDIR=DIR installs the program and every
# man page where the prefix says, and the installed program runs.
source "$top_srcdir/tests/functions.sh"
requires man
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES   # not make check's own

make -s -C "$top_builddir" install DESTDIR="$tmp/inst" >"$tmp/install.log" 2>&1 ||
  fail "make install: $(tail -3 "$tmp/install.log")"
prefix=$(sed -n 's/^prefix = //p' "$top_builddir/Makefile")
bin=$tmp/inst$prefix/bin/powercut
[ -x "$bin" ] || fail "no $prefix/bin/powercut"
for m in "$top_srcdir"/man/*.[157]; do
  n=${m##*/}
  [ -f "$tmp/inst$prefix/share/man/man${n##*.}/$n" ] || fail "man page $n is not installed"
done
run "$bin" --help
assert_eq "$rc" 0 "the installed program runs ($err)"
assert_match "$(MANWIDTH=80 man -l "$tmp/inst$prefix/share/man/man1/powercut-check.1" 2>/dev/null | col -b)" \
  "powercut check" "powercut-check(1) renders"
assert_match "$(MANWIDTH=80 man -l "$tmp/inst$prefix/share/man/man7/powercut.7" 2>/dev/null | col -b)" \
  "Whose fault" "powercut(7) renders"
make -s -C "$top_builddir" uninstall DESTDIR="$tmp/inst" >/dev/null 2>&1 || fail "make uninstall"
assert_eq "$(find "$tmp/inst" -type f | wc -l)" 0 "make uninstall removes what it installed"
