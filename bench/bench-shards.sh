#!/usr/bin/env bash
# bench-shards.sh: how the time of a big check divides across N machines,
# measured through the recipes of contrib/, this machine standing in for
# each of the N (the shards run one after another, each with all the
# CPUs, as on N machines of this kind; the point is that nothing
# serialises).  Two logs:
#   - scale: bench/scale-work.sh, ITERS rewrites on a SIZE device;
#   - skewed: 2,000 flush epochs over a 256 MiB ext4 holding 20,000 files,
#     the last 200 each rewriting the block of the root inode, so that all
#     the work (200 distinct images, an e2fsck each) sits in the last tenth.
# Each is checked unsharded, then in N shards by contrib/slurm-check.sbatch
# (a one-node Slurm of the bench's own: tasks of all the CPUs run one at a
# time) and by contrib/parallel-ssh.sh (a loopback sshd of the bench's
# own, JOBS=1).  Prints, medians of ROUNDS rounds: each shard's time (its
# report's "seconds"), the slowest against the mean, the unsharded time
# against the slowest (how much sooner N machines finish) and against the
# shards' sum, and the recipe's own time beyond its shards' (copies,
# scheduling, merge).  Also checks that the merged shards give the
# unsharded findings.
#
# usage: bench/bench-shards.sh [N [ROUNDS [ITERS [SIZE]]]]   (as root, from the build directory)
# LOGS="scale skewed" (the default) chooses the logs.
set -euo pipefail
n=${1:-4}
rounds=${2:-3}
iters=${3:-3000}
size=${4:-1G}
bench=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$bench/..}"
: "${POWERCUT:=$(pwd)/powercut}"
POWERCUT_TEST_TIMEOUT=600
source "$bench/../tests/functions.sh"
source "$bench/../tests/clusters.sh"
requires_root
requires munged slurmctld slurmd sbatch sshd ssh parallel qemu-io mkfs.ext4 debugfs python3
export TMPDIR=$tmp/scratch
mkdir -p "$TMPDIR"
cpus=$(nproc)
now () { date +%s.%N; }
since () { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }
# seconds REPORT: the check's own time; distinct REPORT: its distinct images
seconds () { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["seconds"])' "$1"; }
distinct () { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["totals"]["unique"])' "$1"; }

logs=${LOGS:-scale skewed}
if [[ " $logs " == *" scale "* ]]; then
echo "recording: $iters rewrites on $size ..." >&2
"$POWERCUT" run --settle 0 --quiet --size "$size" --timeout 7200 --out "$tmp/rec" -- "$bench/scale-work.sh" "$iters" >/dev/null || true
[ -s "$tmp/rec/powercut.log" ] || fail "the scale workload left no log"
mv "$tmp/rec/powercut.log" "$tmp/scale.log"
rm -rf "$tmp/rec"
fi

if [[ " $logs " == *" skewed "* ]]; then
echo "recording: the skewed log ..." >&2
truncate -s 256M "$tmp/base.img"
mkfs.ext4 -q -F -b 4096 -E lazy_itable_init=0,lazy_journal_init=0 "$tmp/base.img"
mkdir "$tmp/mnt"
mount -o loop "$tmp/base.img" "$tmp/mnt"
cleanup_fn umount -q "$tmp/mnt"
for d in $(seq 0 99); do
  mkdir "$tmp/mnt/d$d"
  for f in $(seq 0 199); do echo "$d $f" >"$tmp/mnt/d$d/f$f"; done
done
umount "$tmp/mnt"
blk=$(debugfs -R 'imap <2>' "$tmp/base.img" 2>/dev/null | sed -n 's/.*located at block \([0-9]*\),.*/\1/p')
g=$(( blk * 4096 ))
skew=()
for i in $(seq 1800); do skew+=(-c flush); done
for i in $(seq 200); do skew+=(-c "write -P $i $g 4096" -c flush); done
log=$tmp/skew.log
start_recorder --base "$tmp/base.img"
qemu-io -t none -f raw "$uri" "${skew[@]}" >/dev/null
stop_recorder
fi

hosts=()
for (( i = 0; i < n; i++ )); do hosts+=("h$i"); done
start_slurm "$cpus"
start_sshd "${hosts[@]}"
export PATH=$(dirname "$POWERCUT"):$PATH

# one LOG NAME ROUND: the unsharded check and both recipes once; appends
# "NAME WAY ROUND s0 .. sN-1 wall" lines to $tmp/times.
one ()
{
  local log=$1 name=$2 r=$3 way d t base=()
  [ "$name" = skewed ] && base=(--base "$tmp/base.img")
  cp "$log" "$tmp/app.log"
  "$POWERCUT" check "$tmp/app.log" "${base[@]}" -q --json "$tmp/full.json" >/dev/null || [ $? -eq 1 ]
  echo "$name unsharded $r $(seconds "$tmp/full.json")" >>"$tmp/times"
  for way in slurm ssh; do
    d=$tmp/out-$way
    rm -rf "$d"; mkdir -p "$d"; cd "$d"
    t=$(now)
    if [ $way = slurm ]; then
      sbatch --wait --quiet --array=0-$(( n - 1 )) --cpus-per-task="$cpus" --chdir="$d" \
          "$top_srcdir/contrib/slurm-check.sbatch" "$tmp/app.log" "${base[@]}" >/dev/null
      "$POWERCUT" merge -q --json report.json shard-*.json >/dev/null || [ $? -eq 1 ]
    else
      SSH="ssh -F $ssh_config" SCP="scp -F $ssh_config" POWERCUT_REMOTE=$POWERCUT JOBS=1 \
        "$top_srcdir/contrib/parallel-ssh.sh" "$tmp/app.log" "${hosts[@]}" -- "${base[@]}" >/dev/null || [ $? -eq 1 ]
    fi
    wall=$(since "$t")
    same_findings report.json "$tmp/full.json" || fail "$name, $way: the merged shards differ from the unsharded check"
    echo "$name $way $r $(for (( i = 0; i < n; i++ )); do seconds shard-$i.json; done | tr '\n' ' ')$wall" >>"$tmp/times"
    [ "$r" -gt 1 ] || echo "$name $way distinct $(for (( i = 0; i < n; i++ )); do distinct shard-$i.json; done | tr '\n' ' ')" >>"$tmp/distinct"
    cd "$tmp"
  done
}

: >"$tmp/times"; : >"$tmp/distinct"
for r in $(seq "$rounds"); do
  echo "round $r of $rounds ..." >&2
  [[ " $logs " != *" scale "* ]] || one "$tmp/scale.log" scale "$r"
  [[ " $logs " != *" skewed "* ]] || one "$tmp/skew.log" skewed "$r"
done

python3 - "$tmp/times" "$tmp/distinct" "$n" "$rounds" "$cpus" <<'PY'
import statistics as st, sys
times, distinct, n, rounds, cpus = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
rows = {}
for line in open(times):
    f = line.split()
    rows.setdefault((f[0], f[1]), []).append([float(x) for x in f[3:]])
work = {(l.split()[0], l.split()[1]): l.split()[3:] for l in open(distinct)}
med = lambda xs: st.median(xs)
print("medians of %s rounds; each shard with all %s CPUs, one after another" % (rounds, cpus))
for name in [n for n in ("scale", "skewed") if (n, "unsharded") in rows]:
    full = med([r[0] for r in rows[(name, "unsharded")]])
    print("%s log: unsharded check %.1f s" % (name, full))
    for way in ("slurm", "ssh"):
        rs = rows[(name, way)]
        shard = [med([r[i] for r in rs]) for i in range(n)]
        slow_mean = med([max(r[:n]) / (sum(r[:n]) / n) for r in rs])
        sooner = med([full / max(r[:n]) for r in rs])
        total = med([sum(r[:n]) / full for r in rs])
        extra = med([r[n] - sum(r[:n]) for r in rs])
        print("  %-5s %d shards: %s s (distinct images %s)" % (way, n, ", ".join("%.1f" % s for s in shard), ", ".join(work[(name, way)])))
        print("        slowest %.2fx the mean; N machines finish %.2fx sooner; shards' sum %.2fx unsharded; recipe's own time %.1f s" % (slow_mean, sooner, total, extra))
PY
