#!/usr/bin/env bash
# sample.sh: one configuration's sample of the hunt (doc/hunt.md): the
# four shards of `powercut explore --seq 2 --limit 27500 --seed 51`, one
# after another, each resumed where an earlier run stopped; then merged
# into OUT/all, and the failures grouped by classes.py into OUT/classes.md.
#
# usage: sample.sh OUT CONFIG [EXPLORE-OPTION...]
#   e.g. sample.sh hunt/btrfs btrfs --no-shrink
#        sample.sh hunt/ext4-fc "ext4 mkfs='-b 4096 -O fast_commit'" \
#                  --judge both --skip truncate.zero --no-shrink
#
# POWERCUT names the binary (default: powercut on PATH; copy it aside so
# a rebuild does not change a running sample).  A file OUT/STOP stops it
# between shards; SHARDS picks the shards to run (default "0 1 2 3").
# Exit status: 0 when all four shards are done, 1 when one failed or was
# stopped, 2 on a usage error.
set -uo pipefail

if [ $# -lt 2 ]; then
  echo "usage: sample.sh OUT CONFIG [EXPLORE-OPTION...]" >&2
  exit 2
fi
out=$1 config=$2
shift 2
powercut=${POWERCUT:-powercut}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out" || exit 1

for i in ${SHARDS:-0 1 2 3}; do
  if [ -e "$out/$i/.done" ]; then continue; fi
  if [ -e "$out/STOP" ]; then
    echo "sample.sh: $out/STOP: stopped before shard $i" >&2
    exit 1
  fi
  start=$(date +%s)
  "$powercut" explore --seq 2 --limit 27500 --seed 51 --config "$config" \
    --jobs 2 --shard "$i/4" --resume --quiet --out "$out/$i" "$@" \
    2> >(tee "$out/$i.err" >&2)
  rc=$?
  wait
  # explore's exit status: 0 nothing failed, 1 failures found, 2 an
  # error or a workload not checked (counted in its summary): the shard
  # is done unless it was interrupted or never started.
  if [ $rc -gt 2 ] || grep -q 'interrupted' "$out/$i.err" ||
     [ ! -e "$out/$i/summary.txt" ]; then
    echo "sample.sh: shard $i: powercut explore exited $rc" >&2
    exit 1
  fi
  echo "$(( $(date +%s) - start ))" > "$out/$i/.done"
done

for i in 0 1 2 3; do
  [ -e "$out/$i/.done" ] || exit 1
done
# the merge exits 1 where the sample holds failures, as explore does
"$powercut" explore --merge --out "$out/all" "$out"/[0-3] >/dev/null
[ $? -le 1 ] || exit 1
python3 "$here/classes.py" "$out"/[0-3] > "$out/classes.md" || exit 1
