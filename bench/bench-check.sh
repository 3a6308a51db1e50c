#!/usr/bin/env bash
# bench-check.sh: crash states checked per second by powercut check, against
# the naive method (for each crash point: rebuild the image from record 0,
# recover the journal, e2fsck), in the same run; the cost of the last 100
# states against the first 100; and --jobs 2 against --jobs 1.
#
# usage: bench/bench-check.sh [FSYNCS]   (as root, from the build directory)
set -euo pipefail

fsyncs=${1:-400}
powercut=${POWERCUT:-$(pwd)/powercut}
dir=$(mktemp -d "${BENCH_DIR:-/tmp}/pc-bench.XXXXXX")
trap 'rm -rf "$dir"' EXIT
now () { date +%s.%N; }
since () { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }

# A recording of a few thousand records: files written and fsync'd one by one.
cat >"$dir/work.sh" <<SH
#!/bin/sh
set -e
for i in \$(seq $fsyncs); do
  head -c \$(( (i % 7 + 1) * 4096 )) /dev/urandom > "\$POWERCUT_MNT/f\$(( i % 50 ))"
  sync "\$POWERCUT_MNT/f\$(( i % 50 ))"
done
SH
chmod +x "$dir/work.sh"
"$powercut" run --settle 0 --quiet --out "$dir/rec" -- "$dir/work.sh" >/dev/null || true
log=$dir/rec/powercut.log
records=$(sed -n 's/^records: *\([0-9]*\).*/\1/p' < <("$powercut" log "$log"))

# powercut check, --jobs 1 and 2.
t=$(now); "$powercut" check "$log" -j 1 -q --json "$dir/j1.json" || true; t1=$(since "$t")
t=$(now); "$powercut" check "$log" -j 2 -q --json "$dir/j2.json" || true; t2=$(since "$t")
points=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["totals"]["points"])' "$dir/j1.json")

# The naive method on an even sample of the same crash points (one job).
sample=$(python3 -c 'import json,sys
p=[x["record"] for x in json.load(open(sys.argv[1]))["points"]]
n=min(40, len(p)); print(" ".join(str(p[i * len(p) // n]) for i in range(n)))' "$dir/j1.json")
n=0; t=$(now)
for p in $sample; do
  "$powercut" replay "$log" --at "$p" -o "$dir/naive.img"
  e2fsck -y -E journal_only "$dir/naive.img" >/dev/null 2>&1 || true
  e2fsck -fn "$dir/naive.img" >/dev/null 2>&1 || true
  rm -f "$dir/naive.img"
  n=$(( n + 1 ))
done
tn=$(since "$t")

# The first and the last 100 states (shards are contiguous).
shards=$(( points / 100 ))
[ "$shards" -ge 2 ] || shards=2
t=$(now); "$powercut" check "$log" -j 1 -q --shard "0/$shards" || true; tf=$(since "$t")
t=$(now); "$powercut" check "$log" -j 1 -q --shard "$(( shards - 1 ))/$shards" || true; tl=$(since "$t")

awk -v rec="$records" -v pts="$points" -v t1="$t1" -v t2="$t2" -v n="$n" -v tn="$tn" \
    -v tf="$tf" -v tl="$tl" -v sh="$shards" 'BEGIN {
  naive = n / tn; one = pts / t1; two = pts / t2
  printf "log: %d records, %d crash points (flush model)\n", rec, pts
  printf "%-40s %10.1f states/s\n", "naive (rebuild from 0, e2fsck), 1 job", naive
  printf "%-40s %10.1f states/s  %6.1fx naive\n", "powercut check --jobs 1", one, one / naive
  printf "%-40s %10.1f states/s  %6.2fx --jobs 1\n", "powercut check --jobs 2", two, two / one
  printf "%-40s %10.2f s\n", "first 1/" sh " of the states (--jobs 1)", tf
  printf "%-40s %10.2f s  %6.2fx the first\n", "last 1/" sh " of the states (--jobs 1)", tl, tl / tf
}'
