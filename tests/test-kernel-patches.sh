#!/usr/bin/env bash
# test-kernel-patches.sh: the known bugs put back into Linux 6.1
# (contrib/known-bugs/kernel/*.patch) each still apply to the source
# Debian ships (linux-source-6.1), on their own, to the files they touch;
# each names the fix it undoes and what breaks, and the known-bug script
# that shows it exists and says how to run it; at most two are re-created
# rather than reverted; and the fixes in fixes/ apply the same way.  And
# every known-bug script but run.sh's tools has a "# run:" line.  No
# kernel is built here (build.sh does that).
source "$top_srcdir/tests/functions.sh"
requires patch tar xz
# run.sh runs every script of contrib/known-bugs but its tools: each of
# the others says how to run it (one without a "# run:" line stopped
# run.sh's default list before the scripts after it)
for s in "$top_srcdir"/contrib/known-bugs/*.sh; do
  case $s in
    */run.sh | */trace-blocks.sh)
      grep -q "\*/$(basename "$s")" "$top_srcdir/contrib/known-bugs/run.sh" ||
        fail "run.sh does not skip $(basename "$s")" ;;
    *) grep -q '^# run: ' "$s" || fail "$(basename "$s"): no '# run:' line" ;;
  esac
done
src=${LINUX_SOURCE:-/usr/src/linux-source-6.1.tar.xz}
if [ ! -f "$src" ]; then
  # CI installs it (.ci/packages): there its absence is a failure
  [ "${CI:-}" != true ] || fail "$src: not installed"
  echo "$0: test skipped: no $src (apt-get install linux-source-6.1)"; exit 77
fi
dir=$top_srcdir/contrib/known-bugs/kernel
patches=("$dir"/*.patch)
assert_ge "${#patches[@]}" 8 "bug patches"

fixes=("$dir"/fixes/*.patch)
[ -f "${fixes[0]}" ] || fail "no fix in $dir/fixes"

# every file any patch touches, unpacked in one pass
files=$(sed -n 's|^+++ b/\([^ \t]*\).*|linux-source-6.1/\1|p' "${patches[@]}" "${fixes[@]}" | sort -u)
assert_ne "$files" "" "files the patches touch"
# shellcheck disable=SC2086
tar -xJf "$src" -C "$tmp" $files || fail "$src: cannot unpack $(tr '\n' ' ' <<<"$files")"

recreated=0
for p in "${patches[@]}"; do
  n=$(basename "$p" .patch)
  head=$(sed -n '1,/^\(diff\|---\) /p' "$p")
  assert_match "$head" "^Undoes: [0-9a-f]{12} \"[^\"]+\" \([^)]*Linux [0-9.]+[^)]*\)" "$n: the fix it undoes"
  assert_match "$head" "^Breaks: [^ ]" "$n: what breaks"
  script=$(sed -n 's|^Shown by: *contrib/known-bugs/\([a-z0-9-]*\.sh\).*|\1|p' <<<"$head")
  assert_ne "$script" "" "$n: the script that shows it"
  [ -f "$top_srcdir/contrib/known-bugs/$script" ] || fail "$n: no contrib/known-bugs/$script"
  grep -q '^# run: ' "$top_srcdir/contrib/known-bugs/$script" || fail "$script: no '# run:' line"
  ! grep -q '^Re-created: ' <<<"$head" || recreated=$((recreated + 1))
  out=$(patch -d "$tmp/linux-source-6.1" -p1 --dry-run -f <"$p" 2>&1) || fail "$n: does not apply: $out"
  assert_no_match "$out" "fuzz|offset|Hunk" "$n: applies exactly"
done
assert_ge 2 "$recreated" "patches re-created rather than reverted (at most 2)"

# the fixes (of bugs powercut found): each says what it fixes and why,
# and the script that shows the bug, and applies exactly
for p in "${fixes[@]}"; do
  n=fixes/$(basename "$p" .patch)
  head=$(sed -n '1,/^\(diff\|---\) /p' "$p")
  assert_match "$head" "^Fixes: [^ ]" "$n: what it fixes"
  assert_match "$head" "^Why: [^ ]" "$n: why"
  script=$(sed -n 's|^Shown by: *contrib/known-bugs/\([a-z0-9-]*\.sh\).*|\1|p' <<<"$head")
  [ -n "$script" ] && [ -f "$top_srcdir/contrib/known-bugs/$script" ] || fail "$n: no script that shows it"
  out=$(patch -d "$tmp/linux-source-6.1" -p1 --dry-run -f <"$p" 2>&1) || fail "$n: does not apply: $out"
  assert_no_match "$out" "fuzz|offset|Hunk" "$n: applies exactly"
done
