#!/usr/bin/env bash
# bench-scale.sh: powercut check at the scale of a real disk.  Records the
# workload of many small files rewritten by rename (bench/scale-work.sh) on
# a device of SIZE (default 1G), ITERS rewrites; and again the same ITERS
# changes on a tree first filled with nine times the file data the first
# run ends with (1 MiB files), so the disk holds 10x more.  Then prints, medians of
# ROUNDS rounds, in one run:
#   - states/s of check --jobs 1 and --jobs 2, and their ratio;
#   - the cost of a state with 10x the file data, against the first;
#   - a state's cost against the floor, one e2fsck -fn of the end image;
#   - the plain method (check --plain) on a share of the states.
#
# usage: bench/bench-scale.sh [ITERS [SIZE [ROUNDS]]]   (as root, from the build directory)
set -euo pipefail

iters=${1:-3000}
size=${2:-1G}
rounds=${3:-3}
powercut=${POWERCUT:-$(pwd)/powercut}
work=$(cd "$(dirname "$0")" && pwd)/scale-work.sh
dir=$(mktemp -d "${BENCH_DIR:-/tmp}/pc-bench-scale.XXXXXX")
trap 'rm -rf "$dir"' EXIT
now () { date +%s.%N; }
since () { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }
median () { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
json () { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }

# The file data the workload ends with (the sizes of the last version of
# each name), in MiB: the second run starts with nine times as much.
data_mib=$(awk -v n="$iters" 'BEGIN {
  for (i = 0; i < n; i++) last[(i % 30) " " (i % 97)] = (i % 13 + 1) * 3000
  for (k in last) t += last[k]
  printf "%d", t * 9 / 1048576 + 0.5 }')

echo "recording $iters rewrites on $size (and again after $data_mib MiB of files) ..." >&2
"$powercut" run --settle 0 --quiet --size "$size" --timeout 7200 --out "$dir/rec1" -- "$work" "$iters" >/dev/null || true
"$powercut" run --settle 0 --quiet --size "$size" --timeout 7200 --out "$dir/rec2" -- "$work" "$iters" "$data_mib" >/dev/null || true
log1=$dir/rec1/powercut.log log2=$dir/rec2/powercut.log
records=$(sed -n 's/^records: *\([0-9]*\).*/\1/p' < <("$powercut" log "$log1"))

# check LOG JOBS [ARGS]: seconds per state of one check (its own time).
check () {
  local log=$1 jobs=$2
  shift 2
  "$powercut" check "$log" -j "$jobs" -q --json "$dir/r.json" "$@" >/dev/null || true
  json "$dir/r.json" 'd["seconds"] / d["totals"]["points"]'
}

# The floor: one e2fsck -fn of the end image, median of 5.
floor () {
  "$powercut" replay "$1" --at end -o "$dir/end.img"
  e2fsck -fy "$dir/end.img" >/dev/null 2>&1 || true
  for _ in 1 2 3 4 5; do
    t=$(now); e2fsck -fn "$dir/end.img" >/dev/null 2>&1 || true; since "$t"; echo
  done | median
  rm -f "$dir/end.img"
}

points1=$("$powercut" check "$log1" -j 2 -q --json "$dir/r.json" >/dev/null || true; json "$dir/r.json" 'd["totals"]["points"]')
unique1=$(json "$dir/r.json" 'd["totals"]["unique"]')
work1=$(json "$dir/r.json" '" ".join("%s=%s" % kv for kv in d["work"].items())')
points2=$("$powercut" check "$log2" -j 2 -q --json "$dir/r.json" >/dev/null || true; json "$dir/r.json" 'd["totals"]["points"]')
j1= j2= big=
for r in $(seq "$rounds"); do
  j1="$j1 $(check "$log1" 1)"
  j2="$j2 $(check "$log1" 2)"
  big="$big $(check "$log2" 1)"
done
j1=$(tr ' ' '\n' <<<"$j1" | grep . | median)
j2=$(tr ' ' '\n' <<<"$j2" | grep . | median)
big=$(tr ' ' '\n' <<<"$big" | grep . | median)
f1=$(floor "$log1")
f2=$(floor "$log2")
# The plain method on a share of the states (all of them would take long).
shards=$(( points1 / 400 > 1 ? points1 / 400 : 1 ))
plain=$(check "$log1" 1 --plain --shard "$(( shards / 2 ))/$shards")

awk -v rec="$records" -v pts="$points1" -v uq="$unique1" -v pts2="$points2" -v j1="$j1" -v j2="$j2" \
    -v big="$big" -v f1="$f1" -v f2="$f2" -v plain="$plain" -v mib="$data_mib" -v size="$size" \
    -v rounds="$rounds" -v shards="$shards" -v work="$work1" 'BEGIN {
  printf "log: %d records, %d crash points (flush model), %d distinct images, %s device\n", rec, pts, uq, size
  printf "work of one check: %s\n", work
  printf "medians of %d rounds:\n", rounds
  printf "%-44s %9.1f states/s  %6.2f ms/state\n", "check --jobs 1", 1 / j1, j1 * 1000
  printf "%-44s %9.1f states/s  %6.2fx --jobs 1\n", "check --jobs 2", 1 / j2, j1 / j2
  printf "%-44s %9.1f states/s  %6.2fx the cost of a state\n", "--jobs 1, " mib " MiB more file data (" pts2 " points)", 1 / big, big / j1
  printf "%-44s %9.2f ms        %6.2fx the floor\n", "floor: one e2fsck -fn of the end image", f1 * 1000, j1 / f1
  printf "%-44s %9.2f ms        %6.2fx its floor\n", "floor with " mib " MiB more file data", f2 * 1000, big / f2
  printf "%-44s %9.1f states/s  %6.1fx slower than check\n", "check --plain --jobs 1 (1/" shards " of the states)", 1 / plain, plain / j1
}'
