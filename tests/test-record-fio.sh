#!/usr/bin/env bash
# test-record-fio.sh: fio's nbd engine writes, flushes and verifies through the recorder, and the log counts exactly its writes and flushes.
. "${top_srcdir:-$(dirname "$0")/..}/tests/functions.sh"
requires fio python3

start_recorder --size 64M

# fiostat FILE JOB: "writes syncs reads error" of a job in fio's JSON output
fiostat ()
{
  python3 -c 'import json, sys
for j in json.load(open(sys.argv[1]))["jobs"]:
    if j["jobname"] == sys.argv[2]:
        print(j["write"]["total_ios"], j["sync"]["total_ios"], j["read"]["total_ios"], j["error"])' "$1" "$2"
}

# Two jobs one after the other, on two connections: random 4 KiB writes
# with a flush every 16 writes, one I/O at a time; then the same with 8 in
# flight and a flush every 7.  fio verifies every block it wrote (crc32c).
run fio --output-format=json --output="$tmp/fio.json" \
    --ioengine=nbd --uri="$uri" --bs=4k --rw=randwrite --randrepeat=1 \
    --verify=crc32c --do_verify=1 --verify_fatal=1 --verify_state_save=0 --runtime=60 \
    --name=serial --offset=0 --size=8M --iodepth=1 --fsync=16 \
    --name=queued --offset=32M --size=8M --iodepth=8 --fsync=7 --stonewall
# fio writes, flushes and verifies without an error
assert_eq "$rc" 0 "fio: exit status (stdout: $out; stderr: $err)"
read -r w1 s1 r1 e1 <<<"$(fiostat "$tmp/fio.json" serial)"
read -r w2 s2 r2 e2 <<<"$(fiostat "$tmp/fio.json" queued)"
# each job wrote all of its 2048 blocks
assert_eq "$w1 $w2" "2048 2048" "fio writes"
# and read every one back to verify it
assert_eq "$r1 $r2" "2048 2048" "fio verify reads"
# and flushed
assert_ge "$(( s1 < s2 ? s1 : s2 ))" 1 "fio flushes ($s1 and $s2)"
# fio saw no error
assert_eq "$e1 $e2" "0 0" "fio job errors"

stop_recorder
read_log
# the log reads to a clean end
assert_eq "$log_rc:$(field end)" "0:clean (stopped)" "powercut log: end"
# it has every write fio made
assert_eq "$(count write)" "$(( w1 + w2 ))" "write records"
# and every flush
assert_eq "$(count flush)" "$(( s1 + s2 ))" "flush records"
# and nothing else the client did not ask for
assert_eq "$(count trim) $(count write-zeroes)" "0 0" "trim and write-zeroes records"
dump_log
# all writes are 4 KiB, inside the jobs' areas
assert_eq "$(awk '$4 == "write" { split($5, o, "="); if ($6 != "length=4096" || !(o[2] < 8388608 || (o[2] >= 33554432 && o[2] < 41943040))) print }' <<<"$dump" | head -n 3)" "" "write records outside the jobs"
