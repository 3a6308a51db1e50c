#!/usr/bin/env bash
# test-record-badinput.sh: malformed handshakes and requests get NBD errors or a hang-up, never a crash, and the same recorder keeps serving.
. "${top_srcdir:-$(dirname "$0")/..}/tests/functions.sh"
requires python3 nbdinfo

badclient=$top_srcdir/tests/nbd-badclient.py
start_recorder --size 64M

# Each case checks the server's answer itself; after each one the same
# server must still serve a well-behaved client and nbdinfo.
cases="bad-flags bad-opt-magic unknown-opt long-opt long-export-name
       export-name-cut option-cut export-name abort bad-request-magic
       read-out-of-range read-out-of-range-structured write-out-of-range
       misaligned zero-length unknown-cmd huge-write write-cut write-disc
       write-abandon pipeline"
n_ok=0
for c in $cases; do
  run python3 "$badclient" "$sock" "$c"
  # the server answers the bad client as NBD says
  assert_eq "$rc" 0 "case $c: $err"
  # the recorder is still running
  alive "$recorder_pid" || fail "case $c: the recorder died"
  run python3 "$badclient" "$sock" ok
  # and still serves a good client: write, read back, flush
  assert_eq "$rc" 0 "a good client after case $c: $err"
  n_ok=$((n_ok + 1))
  run nbdinfo --size "$uri"
  # and nbdinfo
  assert_eq "$rc:$out" 0:67108864 "nbdinfo after case $c: $err"
done

# Many bad clients at once, then a good one.
pids=()
for c in $cases; do
  timeout "$T" python3 "$badclient" "$sock" "$c" 2>"$tmp/par.$c" & pids+=($!)
done
i=0
for c in $cases; do
  st=0; wait "${pids[i]}" || st=$?; i=$((i + 1))
  # each case also holds when all run together
  assert_eq "$st" 0 "case $c in parallel: $(cat "$tmp/par.$c")"
done
run python3 "$badclient" "$sock" ok
# a good client is served after the crowd
assert_eq "$rc" 0 "a good client after the parallel cases: $err"
n_ok=$((n_ok + 1))

stop_recorder
dump_log
# the log reads to its end
assert_eq "$dump_rc" 0 "powercut log --dump: exit status"
# it ended cleanly
assert_match "$(tail -n 1 <<<"$dump")" '^# end: clean' "end of the log"
read_log
# the summary agrees
assert_eq "$log_rc:$(field end)" "0:clean (stopped)" "powercut log: end"

# offsets LO HI: the write records with LO <= offset < HI, one line.
offsets () { awk -v lo="$1" -v hi="$2" '$4 == "write" { split($5, a, "="); if (a[2] >= lo && a[2] < hi) n++ } END { print n + 0 }' <<<"$dump"; }
# no write was logged but at the offsets the cases wrote to
assert_eq "$(awk '$4 == "write" { split($5, a, "="); if (a[2] < 1048576 || a[2] >= 16777216) print }' <<<"$dump")" "" "writes outside the written areas"
# every good client's write is there
assert_eq "$(grep -c ' write offset=1048576 length=4096$' <<<"$dump")" "$n_ok" "writes of the good clients"
# and every good client's flush, and pipeline's (write-abandon's may be there)
assert_eq "$(( $(count flush) >= n_ok + 2 && $(count flush) <= n_ok + 4 ))" 1 "flush records: $(count flush) for $n_ok good clients"
# the write cut short by a disconnect is not in the log
assert_eq "$(offsets 3145728 4194304)" 0 "writes of the client that left mid-payload"
# the write sent with NBD_CMD_DISC is, twice (serial and parallel runs)
assert_eq "$(offsets 2097152 3145728)" 2 "writes followed by NBD_CMD_DISC"
# all pipelined writes are, twice
assert_eq "$(offsets 4194304 8388608)" 1200 "pipelined writes"
# the client that left without reading its replies wrote no more than it sent
assert_eq "$(( $(offsets 8388608 16777216) <= 200 ))" 1 "abandoned writes: $(offsets 8388608 16777216)"
# no rejected request became a trim or write-zeroes record
assert_eq "$(count trim) $(count write-zeroes)" "0 0" "trim and write-zeroes records"
