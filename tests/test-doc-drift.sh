#!/usr/bin/env bash
# test-doc-drift.sh: the documentation says what the program does.  Every
# command of powercut --help has its man page, a row in the README's table
# of commands and a place in powercut(1); every option a command's --help
# lists is in that command's man page.
source "$top_srcdir/tests/functions.sh"

run powercut --help
assert_eq "$rc" 0 "powercut --help"
cmds=$(awk '/^commands:/ { f = 1; next } f && /^  [a-z]/ { print $1 } f && /^$/ { exit }' <<<"$out")
assert_ge "$(wc -w <<<"$cmds")" 10 "commands listed by --help"
missing=()
for c in $cmds; do
  page=$top_srcdir/man/powercut-$c.1
  [ -f "$page" ] || { missing+=("man page powercut-$c.1"); continue; }
  grep -q "^| \`powercut $c\b" "$top_srcdir/README.md" || missing+=("$c in the README's table")
  grep -Eq "^\.B $c\$|powercut\\\\-$c \(1\)|powercut\\\\-$c\b" "$top_srcdir/man/powercut.1" ||
    missing+=("$c in powercut(1)")
  run powercut "$c" --help
  assert_eq "$rc" 0 "powercut $c --help"
  for o in $(grep -oE -- '(^|[ ,[])--[a-z][a-z0-9-]*' <<<"$out" | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u); do
    man=${o//-/\\\\-}
    grep -q -- "$man" "$page" || missing+=("$o of $c in powercut-$c.1")
  done
done
assert_eq "$(printf '%s\n' "${missing[@]}")" "" "documented"

# Every key the JSON reports hold (as lib/report writes them) is named in
# powercut-report(5), and the page is installed.
page=$top_srcdir/man/powercut-report.5
grep -q 'powercut-report.5' "$top_srcdir/Makefile.am" || fail "powercut-report.5 is not installed"
keys=$(cat "$top_srcdir"/lib/report/{json,window,devreport,compare,repeat}.c |
  grep -oE '(object_add|pc_json_add_bytes|pc_json_add_text) \([a-z_]+, "[a-z_]+"' |
  sed 's/.*"\(.*\)"/\1/' | sort -u)
assert_ge "$(wc -w <<<"$keys")" 60 "keys found in lib/report"
missing=()
for k in $keys; do
  grep -qE "^\.BR? ${k//_/_}( |$)|^\.BR? .* ${k}( |,|$)|^\.BR ${k} " "$page" || missing+=("$k")
done
assert_eq "${missing[*]}" "" "JSON keys not in powercut-report(5)"
