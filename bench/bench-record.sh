#!/usr/bin/env bash
# bench-record.sh: the recorder's throughput against nbdkit's memory plugin
# (and nbdkit memory with its log filter, which logs no data), with fio's nbd
# engine, and against the disk's own buffered write rate (fio writing a file
# in the directory the log goes to, the same pattern and flushes as fsync),
# in the same run.  Every job ends with a flush (end_fsync), and each is
# timed by the wall clock from fio's start to its end, so each clock stops
# when its data is where its flush puts it: for the disk and for
# powercut's log, on the disk, not in the page cache (nbdkit memory's flush
# does nothing).  Prints the median of several runs and the ratios.
#
# usage: bench/bench-record.sh [RUNS]     (from the build directory)
# env:   BENCH_DIR  where the logs go (default /tmp: page cache and disk)
#        SIZE       bytes each fio job writes (default 1G: a disk's worth of
#                   dirty pages, not a toy)
set -euo pipefail

runs=${1:-3}
size=${SIZE:-1G}
powercut=${POWERCUT:-$(pwd)/powercut}
for c in fio nbdkit python3 "$powercut"; do
  command -v "$c" >/dev/null || { echo "bench-record: $c is needed" >&2; exit 2; }
done
dir=$(mktemp -d "${BENCH_DIR:-/tmp}/pc-bench.XXXXXX")
pids=()
cleanup () { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$dir"; }
trap cleanup EXIT

# server NAME: starts one server on $dir/NAME.sock; echoes nothing.
server ()
{
  local sock=$dir/$1.sock
  rm -f "$sock" "$dir/$1.log" "$dir/$1.pid"
  case $1 in
    powercut) "$powercut" record --log "$dir/powercut.log" --size 2G --socket "$sock" \
                --control "$dir/powercut.ctl" --pidfile "$dir/$1.pid" ;;
    memory) nbdkit --unix "$sock" --pidfile "$dir/$1.pid" memory 2G ;;
    memory+log) nbdkit --unix "$sock" --pidfile "$dir/$1.pid" --filter=log memory 2G \
                  logfile="$dir/$1.log" ;;
  esac
  for _ in $(seq 100); do [ -s "$dir/$1.pid" ] && [ -S "$sock" ] && break; sleep 0.05; done
  pids+=("$(cat "$dir/$1.pid")")
}

stop_server ()
{
  local pid
  pid=$(cat "$dir/$1.pid")
  if [ "$1" = powercut ]; then "$powercut" stop --control "$dir/powercut.ctl"; else kill "$pid"; fi
  while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
}

# MiB/s of SIZE bytes over the wall time from t0 to now (seconds.nanos).
rate ()
{
  python3 -c 'import sys, time
size = sys.argv[1]
n = float(size[:-1]) * {"k": 1 << 10, "K": 1 << 10, "m": 1 << 20, "M": 1 << 20, "g": 1 << 30, "G": 1 << 30}[size[-1]] if size[-1].isalpha() else float(size)
print("%.0f" % (n / (1 << 20) / (time.time() - float(sys.argv[2]))))' "$size" "$1"
}

# one NAME RW BS FSYNC: MiB/s of one fio job, by the wall clock from its
# start to the end of its last flush (fio's own figure may leave out the
# time its end_fsync takes; the disk's rate is then its page cache's).
# A server is started before the clock starts and stopped after.
one ()
{
  local sock=$dir/$1.sock t0
  if [ "$1" = disk ]; then
    t0=$(date +%s.%N)
    fio --name=b --ioengine=psync --filename="$dir/disk.data" --rw="$2" --bs="$3" \
        --size="$size" --fsync="$4" --end_fsync=1 --output-format=json --output="$dir/fio.json" >/dev/null
    rate "$t0"
    rm -f "$dir/disk.data"
    return
  fi
  server "$1"
  t0=$(date +%s.%N)
  fio --name=b --ioengine=nbd --uri="nbd+unix:///?socket=$sock" --rw="$2" --bs="$3" \
      --size="$size" --iodepth=16 --fsync="$4" --end_fsync=1 --output-format=json --output="$dir/fio.json" >/dev/null
  rate "$t0"
  stop_server "$1"
}

median () { tr ' ' '\n' | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

printf '%-34s %9s %9s %11s %9s %8s %8s %8s\n' "fio workload (MiB/s, median of $runs)" \
       powercut memory memory+log disk "vs mem" "vs log" "vs disk"
for w in "randwrite 4k 0" "randwrite 4k 32" "write 64k 0" "write 64k 32"; do
  set -- $w
  declare -A res=()
  for s in powercut memory memory+log disk; do res[$s]=""; done
  for _ in $(seq "$runs"); do
    for s in powercut memory memory+log disk; do   # interleaved: same noise for all
      res[$s]="${res[$s]} $(one "$s" "$1" "$2" "$3")"
    done
  done
  p=$(echo ${res[powercut]} | median); m=$(echo ${res[memory]} | median)
  l=$(echo ${res[memory+log]} | median); d=$(echo ${res[disk]} | median)
  label="$1 bs=$2"
  [ "$3" = 0 ] || label="$label, flush every $3"
  awk -v a="$label" -v p="$p" -v m="$m" -v l="$l" -v d="$d" \
      'BEGIN { printf "%-34s %9s %9s %11s %9s %7.2fx %7.2fx %7.2fx\n", a, p, m, l, d, p / m, p / l, p / d }'
done

# Another client, another way to time the disk: nbdcopy copying SIZE bytes
# of a file (random, in the page cache) to the recorder in 64 KiB requests
# on one connection and flushing at its end, against dd copying the same
# file to a file in the log's directory, 64 KiB at a time, ending in an
# fsync (conv=fsync).  Both by the wall clock, to durable.
if command -v nbdcopy >/dev/null; then
  head -c "$size" /dev/urandom >"$dir/src.data"
  cp=""; dd_=""
  for _ in $(seq "$runs"); do
    server powercut
    t0=$(date +%s.%N)
    nbdcopy --request-size=65536 --connections=1 --flush "$dir/src.data" \
      "nbd+unix:///?socket=$dir/powercut.sock"
    cp="$cp $(rate "$t0")"
    stop_server powercut
    t0=$(date +%s.%N)
    dd if="$dir/src.data" of="$dir/disk.data" bs=64K conv=fsync status=none
    dd_="$dd_ $(rate "$t0")"
    rm -f "$dir/disk.data"
  done
  p=$(echo $cp | median); d=$(echo $dd_ | median)
  awk -v p="$p" -v d="$d" -v r="$runs" 'BEGIN {
    printf "nbdcopy 64 KiB to powercut, flushed: %s MiB/s; dd 64 KiB to a file, fsync: %s MiB/s; %.2fx (medians of %d)\n", p, d, p / d, r }'
fi
