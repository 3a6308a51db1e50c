#!/usr/bin/env bash
# bench-explore.sh: powercut explore's rate of workloads a second against
# the same workloads done one powercut run each, in the same session: the
# whole of --seq 1 on ext4 with the flush model (every workload of one
# operation), then the first RUNS of them (default 20) as one powercut run
# each (each its own mkfs, attach, mount and check), and the ratio; ROUNDS
# rounds of both (default 3), alternating, and the medians of the rates.
#
# usage: bench/bench-explore.sh [RUNS [ROUNDS]]   (as root, from the build
# directory)
set -euo pipefail

runs=${1:-20}
rounds=${2:-3}
powercut=${POWERCUT:-$(pwd)/powercut}
for c in python3 xfs_io setfattr "$powercut"; do
  command -v "$c" >/dev/null || { echo "bench-explore: $c is needed" >&2; exit 2; }
done
[ "$(id -u)" = 0 ] || { echo "bench-explore: run it as root" >&2; exit 2; }
dir=$(mktemp -d "${BENCH_DIR:-/tmp}/pc-bench.XXXXXX")
trap 'rm -rf "$dir"' EXIT
now () { date +%s.%N; }
since () { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }

# the machine's load, before and after: the rates halve when another job
# takes a CPU
load0=$(cut -d' ' -f1-3 /proc/loadavg)

explore () {
  rm -rf "$dir/x"
  t=$(now)
  "$powercut" explore --seq 1 --config ext4 --out "$dir/x" --quiet >"$dir/x.txt" || true
  tx=$(since "$t")
}
explore
n=$(python3 -c 'import json,sys; print(sum(len(w["results"]) for w in json.load(open(sys.argv[1]))["workloads"]))' "$dir/x/explore.json")

# The same workloads as standalone scripts: the files every workload
# starts with (explore puts them in its base image), synced, then the
# workload's operations (batches/B/wN/workload.sh, without the wrapper).
mkdir "$dir/s"
python3 - "$dir/x/batches" "$dir/s" "$runs" <<'PY'
import glob, os, re, sys
out, want = sys.argv[2], int(sys.argv[3])
setup = ["mkdir d0 d1 d0/n"]
for f in ("f0", "f1", "d0/f0", "d0/f1", "d1/f0", "d1/f1"):
    setup += ['xfs_io -f -c "pwrite -S 0x5a 0 16384" %s >/dev/null' % f,
              "setfattr -n user.pc -v setup %s" % f]
ws = sorted(glob.glob(sys.argv[1] + "/*/w*/workload.sh"), key=lambda p: int(re.search(r"/w(\d+)/workload\.sh$", p).group(1)))
for k, w in enumerate(ws[:want]):
    ops = [re.sub(r"^op \d+ ", "", l.rstrip("\n")) for l in open(w) if l.startswith("op ")]
    path = os.path.join(out, "%03d.sh" % k)
    open(path, "w").write("\n".join(["#!/bin/sh", 'cd "$POWERCUT_MNT" || exit 1'] + setup + ["sync"] + ops) + "\n")
    os.chmod(path, 0o755)
PY
run_each () {
  t=$(now)
  for s in "$dir"/s/*.sh; do
    "$powercut" run --settle 0 --quiet --config ext4 --out "$dir/r" -- "$s" >/dev/null || true
  done
  tr=$(since "$t")
}
m=$(ls "$dir"/s/*.sh | wc -l)
: >"$dir/rates"
for ((i = 0; i < rounds; i++)); do
  [ "$i" = 0 ] || explore
  run_each
  echo "$n $tx $m $tr" >>"$dir/rates"
  awk -v r="$((i + 1))" '{ printf "round %d: explore %.2f a second, one run each %.2f\n", r, $1 / $2, $3 / $4 }' \
    <(tail -1 "$dir/rates") >&2
done
# the medians of the rates
sort -n -k1,1 <(awk '{ print $1 / $2 }' "$dir/rates") | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }' >"$dir/mx"
sort -n -k1,1 <(awk '{ print $3 / $4 }' "$dir/rates") | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }' >"$dir/mr"
awk -v n="$n" -v m="$m" -v rx="$(cat "$dir/mx")" -v rr="$(cat "$dir/mr")" -v k="$rounds" 'BEGIN {
  printf "%-34s %9s %12s\n", "ext4, flush model, --seq 1", "workloads", "a second"
  printf "%-34s %9d %12.2f\n", "powercut explore (--jobs: CPUs)", n, rx
  printf "%-34s %9d %12.2f\n", "one powercut run each", m, rr
  printf "explore is %.1fx the rate of one run each (medians of %d rounds)\n", rx / rr, k }'
echo "load average (1, 5, 15 min): $load0 before, $(cut -d' ' -f1-3 /proc/loadavg) after; $(nproc) CPUs"
