#!/usr/bin/env bash
# run.sh: the known crash-consistency bugs of this folder (ext4's, XFS's
# and btrfs's, fixed long ago, and XFS's syncfs, not fixed when found;
# kernel/ puts the fixed ones back into a kernel built here), each
# script run with `powercut run` as its "# run:" line says, on this
# machine's kernel or, with RUN-OPTIONs such as "--attach vm --kernel
# /boot/vmlinuz-6.12...", on another; a line per bug: passes (no broken
# promise: the kernel has the fix, or the bug did not happen; data never
# synced may still be lost, as a crash may), reported (a broken promise:
# see OUT/NAME/report.txt) or error (exit 2: powercut could not record or
# judge it; see OUT/NAME.err).
# usage: run.sh OUT [SCRIPT...] [-- RUN-OPTION...]   (as root)
# Exits 0 if every bug passes, 1 if one is reported, 2 on an error.
set -euo pipefail
usage () { echo "usage: $0 OUT [SCRIPT...] [-- RUN-OPTION...]" >&2; exit 2; }
[ $# -ge 1 ] || usage
out=$1; shift
here=$(cd "$(dirname "$0")" && pwd)
scripts=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do scripts+=("$1"); shift; done
[ $# -eq 0 ] || shift
[ ${#scripts[@]} -gt 0 ] || scripts=("$here"/*.sh)
powercut=${POWERCUT:-powercut}
mkdir -p "$out"
worst=0
# the kernel: this machine's, or a guest's (--attach vm: --kernel, else
# the newest in /boot, as powercut run picks it)
kernel="host $(uname -r)"
case " $* " in
  *" --attach vm "*)
    kernel="vm $(ls /boot/vmlinuz-* 2>/dev/null | sed 's|.*/vmlinuz-||' | sort -V | tail -1)"
    for ((i = 1; i < $#; i++)); do
      [ "${!i}" != --kernel ] || { j=$((i + 1)); kernel="vm ${!j##*/vmlinuz-}"; }
    done ;;
esac
printf '%-28s %-10s %7s  %s\n' bug result points kernel
for s in "${scripts[@]}"; do
  case $s in */run.sh | */trace-blocks.sh) continue ;; esac   # tools, not bugs
  name=$(basename "$s" .sh)
  line=$(sed -n 's/^# run: *//p' "$s")
  [ -n "$line" ] || { echo "$0: $s: no '# run:' line" >&2; exit 2; }
  eval "opts=($line)"
  # a guest has busybox: the scripts' xfs_io goes with them
  case " $* " in *" --attach vm "*) opts+=(--program xfs_io) ;; esac
  rm -rf "${out:?}/$name"
  st=0
  # --settle 0: the bug as explore recorded it, unmounted right after the
  # script; a "# run:" line or a RUN-OPTION (given after) may ask for a
  # settle
  "$powercut" run --quiet --fail-on promises --settle 0 --out "$out/$name" "${opts[@]}" "$@" -- "$(cd "$(dirname "$s")" && pwd)/$(basename "$s")" \
    >"$out/$name.out" 2>"$out/$name.err" || st=$?
  case $st in
    0) result=passes ;;
    1) result=reported; [ $worst -ge 1 ] || worst=1 ;;
    *) result="error($st)"; worst=2 ;;
  esac
  points=$(python3 -c 'import json, sys
try: print(json.load(open(sys.argv[1]))["totals"]["points"])
except Exception: print("-")' "$out/$name/report.json" 2>/dev/null || echo -)
  printf '%-28s %-10s %7s  %s\n' "$name" "$result" "$points" "$kernel"
done
exit $worst
