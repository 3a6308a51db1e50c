#!/usr/bin/env bash
# found.sh: each known bug put back, and found.  For each NAME (every
# NAME.patch of this folder by default) it builds the kernel with that
# bug (build.sh), runs the bug's script (its patch's "Shown by:") in a
# guest of that kernel with contrib/known-bugs/run.sh, and the same
# script on the kernel without the patch; a line per bug:
#
#   NAME  SCRIPT  patched: reported|passes|error  unpatched: ...  BUILD-SECONDS
#
# A bug is found when its script is "reported" (a broken promise: the
# filesystem's fault) on its patched kernel and "passes" without it.
# Then the fixes of bugs found here (fixes/NAME.patch, or NAME given as
# fixes/NAME), a line each: its script "passes" with the fix and is
# "reported" without it.
# usage: found.sh WORK OUT [NAME...]   (as root; WORK as build.sh's)
# Exits 0 if every bug was found, 1 if one was not, 2 on an error.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 WORK OUT [NAME...]" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
work=$1 out=$2; shift 2
mkdir -p "$out"
out=$(cd "$out" && pwd)
names=() fixes=()
for n in "$@"; do
  case $n in fixes/*) fixes+=("${n%.patch}") ;; *) names+=("${n%.patch}") ;; esac
done
if [ $# -eq 0 ]; then
  for p in "$here"/*.patch; do names+=("$(basename "$p" .patch)"); done
  for p in "$here"/fixes/*.patch; do [ -f "$p" ] && fixes+=("fixes/$(basename "$p" .patch)"); done
fi

# the kernel named NAME (built if missing, or older than its patch or
# the configuration), as
# run options in the array kopts
kernel () {
  local n=$1 d=${1//\//-} line
  if [ ! -f "$work/$d/vmlinuz" ] || [ "$here/config" -nt "$work/$d/vmlinuz" ] ||
     { [ "$n" != none ] && [ "$here/$n.patch" -nt "$work/$d/vmlinuz" ]; }; then
    local s; s=$(date +%s)
    "$here/build.sh" "$work" "$n" >"$out/build-$d.log" 2>&1 ||
      { echo "$0: building $n failed: see $out/build-$d.log" >&2; return 2; }
    echo $(( $(date +%s) - s )) >"$out/build-$d.seconds"
  fi
  line=$(ls -d "$work/$d"/lib/modules/*/ | head -1)
  kopts=(--attach vm --kernel "$work/$d/vmlinuz" --modules "${line%/}")
}

# run.sh's result for script s on the kernel in kopts, into $result
result () {
  local s=$1 dir=$2 line
  line=$("$here/../run.sh" "$dir" "$s" -- "${kopts[@]}" 2>/dev/null | tail -n +2 || true)
  result=$(awk '{ print $2 }' <<<"$line")
  [ -n "$result" ] || result=error
}

worst=0
printf '%-38s %-10s %-10s %s\n' bug patched unpatched build
kernel none || exit 2
base=("${kopts[@]}")
for n in "${names[@]}"; do
  [ -f "$here/$n.patch" ] || { echo "$0: no $here/$n.patch" >&2; exit 2; }
  script=$(sed -n 's|^Shown by: *contrib/known-bugs/\([^ ]*\.sh\).*|\1|p' "$here/$n.patch")
  s=$here/../$script
  kernel "$n" || exit 2
  result "$s" "$out/$n/patched"; patched=$result
  kopts=("${base[@]}")
  result "$s" "$out/$n/unpatched"; unpatched=$result
  case $patched/$unpatched in
    reported/passes) ;;
    *error*) worst=2 ;;
    *) [ $worst -ge 1 ] || worst=1 ;;
  esac
  printf '%-38s %-10s %-10s %s\n' "$n" "$patched" "$unpatched" "$(cat "$out/build-$n.seconds" 2>/dev/null || echo -)s"
done

# the fixes of bugs found here (fixes/NAME.patch): the script reported
# without the fix, passing with it
[ ${#fixes[@]} -eq 0 ] || printf '%-38s %-10s %-10s %s\n' fix fixed unfixed build
for n in "${fixes[@]}"; do
  script=$(sed -n 's|^Shown by: *contrib/known-bugs/\([^ ]*\.sh\).*|\1|p' "$here/$n.patch")
  kernel "$n" || exit 2
  result "$here/../$script" "$out/${n//\//-}/fixed"; fixed=$result
  kopts=("${base[@]}")
  result "$here/../$script" "$out/${n//\//-}/unfixed"; unfixed=$result
  case $fixed/$unfixed in
    passes/reported) ;;
    *error*) worst=2 ;;
    *) [ $worst -ge 1 ] || worst=1 ;;
  esac
  printf '%-38s %-10s %-10s %s\n' "$n" "$fixed" "$unfixed" "$(cat "$out/build-${n//\//-}.seconds" 2>/dev/null || echo -)s"
done
exit $worst
