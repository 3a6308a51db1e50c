#!/usr/bin/env bash
# bench-explore.sh: powercut explore's rate of workloads a second against
# the same workloads done one powercut run each, in the same session: the
# whole of --seq 1 on ext4 with the flush model (every workload of one
# operation), then the first RUNS of them (default 20) as one powercut run
# each (each its own mkfs, attach, mount and check), and the ratio.
#
# usage: bench/bench-explore.sh [RUNS]   (as root, from the build directory)
set -euo pipefail

runs=${1:-20}
powercut=${POWERCUT:-$(pwd)/powercut}
for c in python3 xfs_io setfattr "$powercut"; do
  command -v "$c" >/dev/null || { echo "bench-explore: $c is needed" >&2; exit 2; }
done
[ "$(id -u)" = 0 ] || { echo "bench-explore: run it as root" >&2; exit 2; }
dir=$(mktemp -d "${BENCH_DIR:-/tmp}/pc-bench.XXXXXX")
trap 'rm -rf "$dir"' EXIT
now () { date +%s.%N; }
since () { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }

t=$(now)
"$powercut" explore --seq 1 --config ext4 --out "$dir/x" --quiet >"$dir/x.txt" || true
tx=$(since "$t")
n=$(python3 -c 'import json,sys; print(sum(len(w["results"]) for w in json.load(open(sys.argv[1]))["workloads"]))' "$dir/x/explore.json")

# The same workloads as standalone scripts: a batch's commands, each
# workload's between its "# OPS" line and "cd ..", without the wrapper
# and the marks.
mkdir "$dir/s"
python3 - "$dir/x/batches" "$dir/s" "$runs" <<'PY'
import glob, os, re, sys
out, want, k = sys.argv[2], int(sys.argv[3]), 0
for b in sorted(glob.glob(sys.argv[1] + "/*/batch.sh"), key=lambda p: int(p.split("-w")[-1].split("/")[0])):
    cur = None
    for line in open(b):
        line = line.rstrip("\n")
        if line.startswith("# ") and cur is None and k < want and not line.startswith("# powercut") and not line.startswith("# wN"):
            cur = ["#!/bin/sh", line, 'cd "$POWERCUT_MNT" || exit 1']
        elif cur is not None and line == "cd ..":
            open(os.path.join(out, "%03d.sh" % k), "w").write("\n".join(cur) + "\n")
            os.chmod(os.path.join(out, "%03d.sh" % k), 0o755)
            k, cur = k + 1, None
        elif cur is not None and not line.startswith(("W=", "mkdir w", '"$POWERCUT" mark')):
            cur.append(re.sub(r"^op \d+ ", "", line))
PY
t=$(now)
for s in "$dir"/s/*.sh; do
  "$powercut" run --quiet --config ext4 --out "$dir/r" -- "$s" >/dev/null || true
done
tr=$(since "$t")
m=$(ls "$dir"/s/*.sh | wc -l)
awk -v n="$n" -v tx="$tx" -v m="$m" -v tr="$tr" 'BEGIN {
  printf "%-34s %9s %9s %12s\n", "ext4, flush model, --seq 1", "workloads", "seconds", "a second"
  printf "%-34s %9d %9.1f %12.2f\n", "powercut explore (--jobs: CPUs)", n, tx, n / tx
  printf "%-34s %9d %9.1f %12.2f\n", "one powercut run each", m, tr, m / tr
  printf "explore is %.1fx the rate of one run each\n", (n / tx) / (m / tr) }'
