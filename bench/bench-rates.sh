#!/usr/bin/env bash
# bench-rates.sh: the host's exploring rates of issue 51, each the command
# itself timed, ROUNDS rounds (default 3) taken in turn, and the median:
#   explore --seq 1 --config ext4 --jobs 2
#   explore --seq 1 --config xfs --jobs 2 --limit 120
#   explore --seq 1 --config btrfs --jobs 2 --limit 120
#   explore --seq 1 --config "ext4 mkfs='-b 4096 -O fast_commit'" --jobs 2
#           --limit 240 --judge both
# with each run's phases (the mean seconds of a workload's recorder,
# attach, workload, end and check, from its summary.txt) and the target.
#
# usage: bench/bench-rates.sh [ROUNDS [CONFIG...]]   (as root, from the
# build directory; CONFIG one of ext4 xfs btrfs fc, default all four)
set -euo pipefail

rounds=${1:-3}
shift || true
configs=${*:-ext4 xfs btrfs fc}
powercut=${POWERCUT:-$(pwd)/powercut}
command -v "$powercut" >/dev/null || { echo "bench-rates: $powercut is needed" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "bench-rates: run it as root" >&2; exit 2; }
dir=$(mktemp -d "${BENCH_DIR:-/tmp}/pc-bench.XXXXXX")
trap 'rm -rf "$dir"' EXIT
now () { date +%s.%N; }

# the explore options of configuration $1, into the array a
args () {
  case $1 in
    ext4) a=(--config ext4) ;;
    xfs) a=(--config xfs --limit 120) ;;
    btrfs) a=(--config btrfs --limit 120) ;;
    fc) a=(--config "ext4 mkfs='-b 4096 -O fast_commit'" --limit 240 --judge both) ;;
    *) echo "bench-rates: no configuration $1 (ext4 xfs btrfs fc)" >&2; exit 2 ;;
  esac
}
target () { case $1 in ext4) echo 25 ;; fc|xfs|btrfs) echo 10 ;; esac; }

for c in $configs; do args "$c"; done
load0=$(cut -d' ' -f1-3 /proc/loadavg)
for (( r = 1; r <= rounds; r++ )); do
  for c in $configs; do
    args "$c"
    rm -rf "$dir/x"
    t=$(now)
    "$powercut" explore --seq 1 --jobs 2 "${a[@]}" --out "$dir/x" --quiet >/dev/null || true
    s=$(awk -v a="$t" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }')
    n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["workloads"]))' "$dir/x/explore.json")
    phases=$(sed -n 's/^ *[^:]*: \(recorder .*\)$/\1/p' "$dir/x/summary.txt" | head -n 1)
    echo "$c $r $n $s $phases" >>"$dir/runs"
    printf '%-6s round %d: %4d workloads in %7.2f s: %6.2f/s  (%s)\n' "$c" "$r" "$n" "$s" \
      "$(awk -v n="$n" -v s="$s" 'BEGIN { print n / s }')" "$phases"
  done
done
echo "load: $load0 before, $(cut -d' ' -f1-3 /proc/loadavg) after"
for c in $configs; do
  awk -v c="$c" '$1 == c { print $3 / $4 }' "$dir/runs" | sort -g |
    awk -v c="$c" -v tg="$(target "$c")" '{ r[++n] = $1 } END {
      m = n % 2 ? r[(n + 1) / 2] : (r[n / 2] + r[n / 2 + 1]) / 2;
      printf "%-6s median %.2f workloads/s over %d rounds; target %d/s: %.2fx\n", c, m, n, tg, m / tg }'
done
