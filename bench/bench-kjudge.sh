#!/usr/bin/env bash
# bench-kjudge.sh: the kernel as judge (powercut check --judge kernel), its
# speed beside the libext2fs judge's.  Records the scale benches' workload
# (bench/scale-work.sh: small files rewritten by rename, synced) of ITERS
# rewrites on a SIZE device (default 320M, XFS's least) formatted ext4,
# xfs and btrfs.  Then prints, medians of ROUNDS rounds, in one run:
#   - states/s of check --jobs 2 on each: ext4 judged by libext2fs (the
#     anchor) and by the kernel, xfs and btrfs by the kernel;
#   - the kernel judge's ratio to libext2fs on the same ext4 log;
#   - the time a state's parts take in the kernel judge: the copy, the
#     loop device and the mount (the log's replay), the tree read, the
#     unmount, the filesystem's own check (the check's work.kernel_seconds,
#     summed over both workers, per state).
# The checks keep their scratch where a user's is by default (/dev/shm):
# on a disk filesystem, unlinking each state's 320 MiB copy costs more
# than judging it.  Note the load average: the rates follow the CPUs the
# machine gives.
#
# usage: bench/bench-kjudge.sh [ITERS [SIZE [ROUNDS]]]   (as root, from the build directory)
set -euo pipefail

iters=${1:-300}
size=${2:-320M}
rounds=${3:-3}
powercut=${POWERCUT:-$(pwd)/powercut}
work=$(cd "$(dirname "$0")" && pwd)/scale-work.sh
dir=$(mktemp -d "${BENCH_DIR:-/tmp}/pc-bench-kjudge.XXXXXX")
trap 'rm -rf "$dir"' EXIT
export TMPDIR=$dir
median () { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
json () { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs" >&2
for fs in ext4 xfs btrfs; do
  echo "recording $iters rewrites on $fs, $size ..." >&2
  "$powercut" run --settle 0 --quiet --fs "$fs" --size "$size" --timeout 7200 --out "$dir/$fs" \
      -- "$work" "$iters" >/dev/null || true
done

# rate LOG JUDGE: states/s of one check --jobs 2 (its own time), and the
# parts' seconds per state into $dir/parts-LABEL
rate () {
  local log=$1 judge=$2 label=$3
  # the check's scratch where a user's is (not TMPDIR, which holds the
  # recordings on the disk: there each state's copy costs its unlink)
  env -u TMPDIR "$powercut" check "$log" -j 2 -q --judge "$judge" --json "$dir/r.json" >/dev/null || true
  json "$dir/r.json" 'd["totals"]["unique"] / d["seconds"]'
  json "$dir/r.json" '" ".join("%.2f" % (d["work"].get("kernel_seconds", {}).get(k, 0) * 1000 / max(1, d["work"]["judged_by_kernel"])) for k in ("copy", "mount", "read", "unmount", "check"))' \
    >>"$dir/parts-$label"
}

for label in ext4-ext2fs ext4-kernel xfs-kernel btrfs-kernel; do
  fs=${label%-*} judge=${label#*-}
  : >"$dir/parts-$label"
  for _ in $(seq "$rounds"); do rate "$dir/$fs/powercut.log" "$judge" "$label"; done \
    | median >"$dir/rate-$label"
done

echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for fs in ext4 xfs btrfs; do
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("%s: %d crash points, %d distinct images" % (sys.argv[2], d["totals"]["points"], d["totals"]["unique"]))' \
    "$dir/$fs/report.json" "$fs"
done
echo "medians of $rounds rounds, check --jobs 2:"
a=$(cat "$dir/rate-ext4-ext2fs")
for label in ext4-ext2fs ext4-kernel xfs-kernel btrfs-kernel; do
  r=$(cat "$dir/rate-$label")
  parts=$(awk '{ for (i = 1; i <= NF; i++) s[i] = s[i] " " $i } END { for (i = 1; i <= 5; i++) print s[i] }' "$dir/parts-$label" |
          while read -r l; do tr ' ' '\n' <<<"$l" | grep . | median; done | tr '\n' ' ')
  awk -v l="$label" -v r="$r" -v a="$a" -v p="$parts" 'BEGIN {
    split (p, v, " ")
    printf "%-14s %7.1f states/s  %5.2fx libext2fs on ext4", l, r, r / a
    if (l != "ext4-ext2fs")
      printf "   ms a state: copy %s, mount %s, read %s, unmount %s, check %s", v[1], v[2], v[3], v[4], v[5]
    printf "\n" }'
done
