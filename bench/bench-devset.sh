#!/usr/bin/env bash
# bench-devset.sh: checking several devices cut at one instant.  Records,
# with powercut run --device, two devices of SIZE (default 1G) on which
# ITERS (default 1000) files are written and fsynced, a and b in turn,
# each version then renamed over the last (so both trees hold up to a thousand
# files), and prints, medians of ROUNDS (default 3) rounds, in one run:
#   - instants/s of powercut check DIR --jobs 1 (each device's state
#     checked once however many instants share it);
#   - the anchor: the plain method, each instant rebuilt from zero
#     (powercut replay DIR --at) and both images recovered and checked by
#     e2fsck, timed on a sample of instants;
#   - their ratio, and a state's cost against one e2fsck -fn of both end
#     images (the floor).
#
# usage: bench/bench-devset.sh [ITERS [SIZE [ROUNDS]]]   (as root, from the build directory)
set -euo pipefail

iters=${1:-1000}
size=${2:-1G}
rounds=${3:-3}
powercut=${POWERCUT:-$(pwd)/powercut}
dir=$(mktemp -d "${BENCH_DIR:-/tmp}/pc-bench-devset.XXXXXX")
trap 'rm -rf "$dir"' EXIT
now () { date +%s.%N; }
since () { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }
median () { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
json () { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }

cat >"$dir/work.sh" <<'SH'
#!/bin/sh
# file i of 1009 names, 2-14 KiB, fsynced and renamed over, on a then b
set -e
i=0
while [ "$i" -lt "$1" ]; do
  for d in "$POWERCUT_MNT_a" "$POWERCUT_MNT_b"; do
    n=$((i % 1009)) s=$(( (i % 13 + 2) * 1024 ))
    head -c "$s" /dev/urandom >"$d/.f$n.tmp"
    sync "$d/.f$n.tmp"
    mv "$d/.f$n.tmp" "$d/f$n"
  done
  i=$((i + 1))
done
sync
SH
chmod +x "$dir/work.sh"
echo "recording $iters rewrites on two devices of $size ..." >&2
"$powercut" run --settle 0 --quiet --device "a:$size" --device "b:$size" --fail-on promises \
    --timeout 7200 --out "$dir/rec" -- "$dir/work.sh" "$iters" >/dev/null || true
set_dir=$dir/rec/set
[ -f "$set_dir/a.pclog" ] || { echo "bench-devset: the recording failed" >&2; exit 2; }

# check: seconds of one check of the set with --jobs 1; its instants.
check () {
  local t0
  t0=$(now)
  "$powercut" check "$set_dir" -j 1 -q --json "$dir/r.json" >/dev/null || true
  since "$t0"
}

# plain K: seconds per instant, each rebuilt from zero and both images
# recovered and checked by e2fsck, over K instants spread over the set.
plain () {
  local k=$1 t0 id n=0
  mapfile -t ids < <(json "$dir/r.json" '"\n".join(x["id"] for x in d["instants"])')
  t0=$(now)
  for (( i = 0; i < ${#ids[@]}; i += ${#ids[@]} / k + 1 )); do
    id=${ids[$i]}
    rm -rf "$dir/st"
    "$powercut" replay "$set_dir" --at "$id" -o "$dir/st" >/dev/null
    for img in "$dir"/st/*.img; do
      e2fsck -fy -E journal_only "$img" >/dev/null 2>&1 || true
      e2fsck -fn "$img" >/dev/null 2>&1 || true
    done
    n=$((n + 1))
  done
  awk -v t="$(since "$t0")" -v n="$n" 'BEGIN { printf "%.4f", t / n }'
}

# The floor: e2fsck -fn of both end images, median of 3.
floor () {
  rm -rf "$dir/end"
  "$powercut" replay "$set_dir" --at "a:end" -o "$dir/end" >/dev/null
  for _ in 1 2 3; do
    local t0
    t0=$(now)
    for img in "$dir"/end/*.img; do e2fsck -fn "$img" >/dev/null 2>&1 || true; done
    since "$t0"; echo
  done | median
}

for (( r = 0; r < rounds; r++ )); do
  echo "round $((r + 1)) of $rounds ..." >&2
  c=$(check)
  inst=$(json "$dir/r.json" 'd["totals"]["instants"]')
  states=$(json "$dir/r.json" 'sum(x["states"] for x in d["devices"])')
  p=$(plain 20)
  echo "$c $inst $states $p $(floor)" >>"$dir/rounds"
done
read -r _ inst states _ _ < <(tail -n 1 "$dir/rounds")   # the same every round
c=$(awk '{ print $1 }' "$dir/rounds" | median)
p=$(awk '{ print $4 }' "$dir/rounds" | median)
fl=$(awk '{ print $5 }' "$dir/rounds" | median)
echo "bench-devset: two devices of $size, $iters rewrites each; kernel $(uname -r); medians of $rounds"
awk -v c="$c" -v i="$inst" -v s="$states" -v p="$p" -v f="$fl" 'BEGIN {
  printf "  check DIR -j 1: %d instants (%d device states) in %.1f s: %.1f instants/s\n", i, s, c, i / c
  printf "  plain (each instant rebuilt from zero, e2fsck on both): %.3f s an instant: %.1f instants/s\n", p, 1 / p
  printf "  ratio: %.1fx the plain method\n", (i / c) * p
  printf "  floor: e2fsck -fn of both end images %.3f s; a device state costs %.2fx one image'"'"'s e2fsck\n", f, (c / s) / (f / 2)
}'
