#!/usr/bin/env bash
# bench-trace.sh: what tracing costs a workload.  The same workloads run
# under powercut run traced (the default) and untraced (--no-trace), in the
# same session, rounds alternating; each workload is timed around itself,
# inside the recorded filesystem, so mkfs, mount and the check are not
# counted.  Prints the medians, the slowdown, the tracer's peak memory (its
# own report in workload.txt) and, for the check, its peak memory and how
# much of it the history of the events takes (against a check that ignores
# them: most of a check's memory is the log it reads).
#
# The workloads: git (contrib/apps/git: GIT_COMMITS commits, default 20),
# SQLite (contrib/apps/sqlite: SQLITE_TRANSACTIONS transactions, default 30,
# DELETE journal, synchronous=FULL), a writer appending a 4 KiB record to
# one file APPENDS times (default 20000), and a 1 GiB file (fallocated)
# rewritten in REWRITES 4 KiB pieces at random offsets (default 20000): its
# history holds one hash per piece written, not the file.
#
# usage: bench/bench-trace.sh [ROUNDS]   (as root, from the build directory)
set -euo pipefail

rounds=${1:-3}
powercut=${POWERCUT:-$(pwd)/powercut}
src=$(cd "$(dirname "$0")/.." && pwd)
for c in git sqlite3 python3 /usr/bin/time "$powercut"; do
  command -v "$c" >/dev/null || { echo "bench-trace: $c is needed" >&2; exit 2; }
done
[ "$(id -u)" = 0 ] || { echo "bench-trace: run it as root" >&2; exit 2; }
dir=$(mktemp -d "${BENCH_DIR:-/tmp}/pc-bench.XXXXXX")
trap 'rm -rf "$dir"' EXIT
export GIT_COMMITS=${GIT_COMMITS:-20} SQLITE_TRANSACTIONS=${SQLITE_TRANSACTIONS:-30}
appends=${APPENDS:-20000} rewrites=${REWRITES:-20000}

cat >"$dir/append.py" <<'PY'
import os, sys
fd = os.open("log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
rec = b"r" * 4095 + b"\n"
for i in range(int(sys.argv[1])):
    os.write(fd, rec)
os.close(fd)
PY
cat >"$dir/rewrite.py" <<'PY'
import os, random, sys
fd = os.open("big", os.O_RDWR | os.O_CREAT, 0o644)
os.posix_fallocate(fd, 0, 1 << 30)
r = random.Random(1)
piece = b"p" * 4096
for i in range(int(sys.argv[1])):
    os.pwrite(fd, piece, r.randrange(1 << 18) * 4096)
os.close(fd)
PY
# timed NAME CMD...: runs CMD, writes its wall time (s) to $dir/NAME.t
cat >"$dir/timed.sh" <<'SH'
#!/bin/sh
out=$1; shift
t0=$(date +%s.%N)
"$@"; rc=$?
t1=$(date +%s.%N)
echo "$t0 $t1" | awk '{ printf "%.3f\n", $2 - $1 }' >"$out"
exit $rc
SH
chmod +x "$dir/timed.sh"

workload () {
  case $1 in
  git) echo "$src/contrib/apps/git/workload.sh" ;;
  sqlite) echo "$src/contrib/apps/sqlite/workload.sh" ;;
  append) echo "python3 $dir/append.py $appends" ;;
  rewrite) echo "python3 $dir/rewrite.py $rewrites" ;;
  esac
}

median () { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

printf '%-10s %10s %10s %9s %14s %10s %14s %14s\n' workload untraced traced slowdown \
  "tracer memory" events "check memory" "its history"
for w in git sqlite append rewrite; do
  size=128M
  [ "$w" = rewrite ] && size=2G
  for r in $(seq "$rounds"); do
    for how in no-trace trace; do
      out=$dir/$w-$how-$r
      # shellcheck disable=SC2046
      "$powercut" run --settle 0 --quiet --config ext4 --size "$size" --"$how" --out "$out" -- \
        "$dir/timed.sh" "$dir/$w-$how-$r.t" $(workload "$w") >/dev/null 2>&1 || [ $? = 1 ] ||
        { echo "bench-trace: $w ($how) failed: see $out/workload.txt" >&2; exit 1; }
    done
  done
  un=$(cat "$dir/$w-no-trace-"*.t | median)
  tr=$(cat "$dir/$w-trace-"*.t | median)
  mem=$(sed -n "s/.*the tracer's peak memory \([0-9]*\) KiB.*/\1/p" "$dir/$w-trace-"*/workload.txt | median)
  log=$dir/$w-trace-1/powercut.log
  events=$("$powercut" log "$log" | sed -n 's/^  event *\([0-9]*\).*/\1/p')
  # the check's peak memory with the history and without (--ignore-events):
  # the difference is what the history of those events costs
  /usr/bin/time -o "$dir/mem" -f %M "$powercut" check "$log" --quiet -j 1 >/dev/null 2>&1 || true
  cmem=$(tail -n 1 "$dir/mem")
  /usr/bin/time -o "$dir/mem" -f %M "$powercut" check "$log" --quiet -j 1 --ignore-events \
    >/dev/null 2>&1 || true
  hmem=$((cmem - $(tail -n 1 "$dir/mem")))
  printf '%-10s %9.2fs %9.2fs %8.2fx %10s KiB %10s %10s KiB %10s KiB\n' "$w" "$un" "$tr" \
    "$(awk -v a="$tr" -v b="$un" 'BEGIN { print (b > 0 ? a / b : 0) }')" "$mem" "${events:-0}" \
    "$cmem" "$hmem"
done
echo "(medians of $rounds rounds; git: $GIT_COMMITS commits, SQLite: $SQLITE_TRANSACTIONS transactions," \
     "append: $appends x 4 KiB, rewrite: $rewrites x 4 KiB in a 1 GiB file)"
