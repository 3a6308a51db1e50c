#!/usr/bin/env bash
# explored.sh: each known bug put back, looked for by powercut explore
# without being told where.  For each NAME (every NAME.patch of this
# folder by default) it boots the kernel with that bug (built by build.sh
# if missing) and runs `powercut explore --attach vm` on it, on the
# configuration its script's "# run:" line names (--config and
# --mkfs-opts: where to look, not what), with the EXPLORE-OPTIONs
# (default --seq 1: every workload of one operation); a line per bug:
#
#   NAME  CONFIG  found|no  WORKLOADS  FIRST-S  SHRUNK
#
# found: explore failed on a broken promise (the filesystem's); FIRST-S
# the seconds to its first failure, SHRUNK the first broken promise's
# shrunk workload (OUT/NAME/failures/).  With "none:BUG" as a NAME, the
# kernel without a bug on BUG's configuration, into OUT/none-BUG: what
# that kernel fails on its own, to set a bug's finds against.
# usage: explored.sh WORK OUT [NAME...] [-- EXPLORE-OPTION...]   (as root)
# Exits 0 if every bug was found, 1 if one was not, 2 on an error.
set -euo pipefail
usage () { echo "usage: $0 WORK OUT [NAME...] [-- EXPLORE-OPTION...]" >&2; exit 2; }
[ $# -ge 2 ] || usage
here=$(cd "$(dirname "$0")" && pwd)
work=$1 out=$2; shift 2
names=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do names+=("${1%.patch}"); shift; done
[ $# -eq 0 ] || shift
xopts=("$@")
[ ${#xopts[@]} -gt 0 ] || xopts=(--seq 1)
[ ${#names[@]} -gt 0 ] || for p in "$here"/*.patch; do names+=("$(basename "$p" .patch)"); done
powercut=${POWERCUT:-powercut}
mkdir -p "$out"
out=$(cd "$out" && pwd)

# the explore configuration of bug n: its script's --config, with its
# --mkfs-opts, as one --config SPEC
config_of () {
  local n=${1#none:} script line fs mk
  [ "$n" != none ] || { echo ext4; return; }
  script=$(sed -n 's|^Shown by: *contrib/known-bugs/\([^ ]*\.sh\).*|\1|p' "$here/$n.patch")
  line=$(sed -n 's/^# run: *//p' "$here/../$script")
  eval "set -- $line"
  fs='' mk=''
  while [ $# -gt 0 ]; do
    case $1 in --config) fs=$2; shift ;; --mkfs-opts) mk=$2; shift ;; esac
    shift
  done
  [ -n "$fs" ] || { echo "$0: $script: no --config in its run line" >&2; return 2; }
  if [ -n "$mk" ]; then echo "$fs mkfs='$mk'"; else echo "$fs"; fi
}

worst=0
printf '%-38s %-28s %-5s %9s %8s  %s\n' bug config found workloads first-s shrunk
for name in "${names[@]}"; do
  n=$name k=$name
  case $name in none:*) k=none n=none-${name#none:} ;; esac
  [ "$k" = none ] || [ -f "$here/$k.patch" ] || { echo "$0: no $here/$k.patch" >&2; exit 2; }
  if [ ! -f "$work/$k/vmlinuz" ] || [ "$here/config" -nt "$work/$k/vmlinuz" ] ||
     { [ "$k" != none ] && [ "$here/$k.patch" -nt "$work/$k/vmlinuz" ]; }; then
    "$here/build.sh" "$work" "$k" >"$out/build-$k.log" 2>&1 ||
      { echo "$0: building $k failed: see $out/build-$k.log" >&2; exit 2; }
  fi
  mods=$(ls -d "$work/$k"/lib/modules/*/ | head -1)
  spec=$(config_of "$name") || exit 2
  rm -rf "${out:?}/$n"
  st=0
  "$powercut" explore --quiet --attach vm --kernel "$work/$k/vmlinuz" --modules "${mods%/}" \
    --config "$spec" --out "$out/$n" "${xopts[@]}" >"$out/$n.out" 2>"$out/$n.err" || st=$?
  [ $st -le 1 ] || [ -s "$out/$n/summary.txt" ] || { worst=2; printf '%-38s %-28s error(%d)\n' "$n" "$spec" $st; continue; }
  sum=$out/$n/summary.txt
  runs=$(sed -n 's/^\([0-9]*\) workload runs.*/\1/p' "$sum")
  first=$(sed -n 's/^first failure after \([0-9.]*\) s.*/\1/p' "$sum")
  shrunk=-
  for f in "$out/$n"/failures/*.sh; do
    [ -f "$f" ] && grep -q '^#   found: .*(a broken promise)' "$f" || continue
    shrunk=$(sed -n 's/^#   workload: *//p' "$f"); break
  done
  if [ "$shrunk" != - ]; then found=yes; else found=no; first=-; fi
  [ $st -le 1 ] || worst=2
  [ $found = yes ] || [ "$k" = none ] || [ $worst -ge 1 ] || worst=1
  printf '%-38s %-28s %-5s %9s %8s  %s\n' "$n" "$spec" "$found" "${runs:-0}" "${first:--}" "$shrunk"
done
exit $worst
