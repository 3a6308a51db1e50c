#!/usr/bin/env bash
# test-record-kill9.sh: a recorder killed with SIGKILL mid-workload leaves a log that reads, ends torn, and holds every write and flush the client saw acknowledged.
. "${top_srcdir:-$(dirname "$0")/..}/tests/functions.sh"
requires qemu-io

start_recorder --size 128M

# The workload: write block i (4 KiB of byte i%255+1 at i*4 KiB), flush,
# and so on, 20000 times, far more than runs before the kill.  qemu-io runs
# the commands one after the other and prints "wrote ..." for each write
# that succeeded (a failed flush prints nothing), so when write i+1 is
# reported, flush i was acknowledged: the client saw (writes reported - 1)
# flushes succeed, at least.
for i in $(seq 0 19999); do
  echo "write -P $(( i % 255 + 1 )) $(( i * 4096 )) 4k"
  echo "flush"
done >"$tmp/commands"
timeout "$T" qemu-io -t none -f raw "$uri" <"$tmp/commands" >"$tmp/qemu-io.out" 2>&1 &
qemu_pid=$!
stop_qemu () { [ -z "$qemu_pid" ] || kill "$qemu_pid" 2>/dev/null || true; }
cleanup_fn stop_qemu

# Kill the recorder once ~250 write+flush pairs are in the log.
log_size () { [ "$(stat -c %s "$log")" -gt 1048576 ]; }
wait_until "$T" log_size
kill -KILL "$recorder_pid"
wait_recorder_exit
st=0; wait "$qemu_pid" || st=$?; qemu_pid=
# the client sees its requests fail once the server is gone
assert_eq "$st" 1 "qemu-io exit status"

acked=$(grep -o 'wrote 4096/4096 bytes at offset [0-9]*' "$tmp/qemu-io.out" | awk '{ print $NF }')
n_acked=$(grep -c . <<<"$acked")
# the kill came in the middle of the workload: some writes succeeded
assert_ge "$n_acked" 100 "writes acknowledged before the kill"
# and the rest failed
assert_ge "$(grep -c 'write failed' "$tmp/qemu-io.out")" 10000 "writes failed after the kill"

read_log
# powercut log reads the log of a killed recorder
assert_eq "$log_rc" 0 "powercut log: exit status (stderr: $log_err)"
# and says it ended torn
assert_match "$(field end)" '^torn' "end"
# it has at least as many flushes as the client saw acknowledged
assert_ge "$(count flush)" "$(( n_acked - 1 ))" "flush records (client saw $((n_acked - 1)) flushes succeed)"
# and at least as many writes
assert_ge "$(count write)" "$n_acked" "write records"
dump_log
logged=$(awk '$4 == "write" { sub(/offset=/, "", $5); print $5 }' <<<"$dump")
# every write the client saw succeed is in the log
assert_eq "$(comm -23 <(sort <<<"$acked") <(sort <<<"$logged") | head -n 5 | tr '\n' ' ')" "" "acknowledged writes missing from the log"
# and the records alternate write, flush as the client sent them (each
# flush answered with a DONE after it)
assert_eq "$(awk '!/^#/ && $4 != "done" { n++; t = (n % 2) ? "write" : "flush"; if ($4 != t) { print "record " $1 ": " $4; exit } }' <<<"$dump")" "" "record order"
