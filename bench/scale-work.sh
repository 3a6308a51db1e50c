#!/bin/sh
# scale-work.sh: the workload of the scale benches, run by "powercut run --":
# many small files rewritten by rename.  30 directories, ITERS times
# d$((i%30))/f$((i%97)) written with (i%13+1)*3000 random bytes, synced,
# renamed over the old name, a synced mark with a manifest every 100.
# With MIB, bulk/ is first filled with that many 1 MiB files.
# usage: scale-work.sh ITERS [MIB]
set -e
iters=$1
cd "$POWERCUT_MNT"
if [ "${2:-0}" -gt 0 ]; then
  mkdir bulk
  i=0
  while [ $i -lt "$2" ]; do head -c 1M /dev/urandom >bulk/b$i; i=$((i + 1)); done
  sync
fi
for d in $(seq 0 29); do mkdir -p d$d; done
"$POWERCUT" mark start --manifest "$POWERCUT_MNT" --sync
i=0
while [ $i -lt "$iters" ]; do
  f=d$((i % 30))/f$((i % 97))
  head -c $(( (i % 13 + 1) * 3000 )) /dev/urandom >$f.tmp
  sync $f.tmp
  mv $f.tmp $f
  i=$((i + 1))
  [ $((i % 100)) -ne 0 ] || "$POWERCUT" mark m$i --manifest "$POWERCUT_MNT" --sync
done
