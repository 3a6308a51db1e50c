#!/usr/bin/env bash
# test-record-qemu.sh: qemu-io/qemu-img write, FUA-write, trim and zero through the recorder, read back the right bytes, and every request is logged in order.
. "${top_srcdir:-$(dirname "$0")/..}/tests/functions.sh"
requires qemu-io qemu-img cmp

start_recorder --size 64M

# The workload: "-t none" so that only "write -f" asks for FUA.
run qemu-io -t none -f raw "$uri" \
    -c 'write -P 0x11 0 64k' \
    -c 'write -f -P 0x22 64k 4k' \
    -c 'flush' \
    -c 'write -P 0x33 1M 1M' \
    -c 'discard 1M 512k' \
    -c 'write -z 4M 256k' \
    -c 'write -P 0x44 5M 128k' \
    -c 'write -z -u 5M 128k' \
    -c 'write -P 0x55 63M 1M'
# qemu-io's writes succeed
assert_eq "$rc" 0 "qemu-io writes: exit status (stdout: $out; stderr: $err)"
# none of them failed
assert_no_match "$out$err" 'failed' "qemu-io writes"

# Read back through a new connection; qemu-io fails on a pattern mismatch.
run qemu-io -r -f raw "$uri" \
    -c 'read -P 0x11 0 64k' \
    -c 'read -P 0x22 64k 4k' \
    -c 'read -P 0 68k 956k' \
    -c 'read -P 0 1M 512k' \
    -c 'read -P 0x33 1536k 512k' \
    -c 'read -P 0 4M 256k' \
    -c 'read -P 0 5M 128k' \
    -c 'read -P 0x55 63M 1M'
# every range reads back what was written, trimmed or zeroed
assert_eq "$rc:$(grep -c 'verification failed' <<<"$out" || true)" 0:0 "qemu-io reads (stdout: $out; stderr: $err)"

# The whole export, copied by qemu-img, is exactly the expected image.
# fill OFFSET LENGTH BYTE: writes LENGTH bytes of BYTE at OFFSET of expected.img
fill ()
{
  head -c "$2" /dev/zero | tr '\0' "\\$(printf '%03o' "$3")" |
    dd of="$tmp/expected.img" bs=64k seek="$1" oflag=seek_bytes iflag=fullblock \
       conv=notrunc status=none
}
truncate -s 64M "$tmp/expected.img"
fill 0 64K 0x11
fill 64K 4K 0x22
fill $((1536 << 10)) 512K 0x33
fill 63M 1M 0x55
run qemu-img convert -f raw -O raw "$uri" "$tmp/copy.img"
# qemu-img convert reads the export
assert_eq "$rc" 0 "qemu-img convert: exit status (stderr: $err)"
run cmp "$tmp/copy.img" "$tmp/expected.img"
# the copy is the expected image byte for byte
assert_eq "$rc" 0 "copy.img vs expected.img: $out"

# Marks, a FUA write between them, then stop.
run powercut mark --control "$ctl" after-qemu-io
# a mark goes in
assert_eq "$rc" 0 "powercut mark after-qemu-io: exit status (stderr: $err)"
run qemu-io -t none -f raw "$uri" -c 'write -f -P 0x66 8M 4k'
# another client session writes
assert_eq "$rc" 0 "qemu-io FUA write: exit status (stderr: $err)"
run powercut mark --control "$ctl" second.mark_2
# a second mark goes in
assert_eq "$rc" 0 "powercut mark second.mark_2: exit status (stderr: $err)"
stop_recorder

dump_log
# the log reads to its end
assert_eq "$dump_rc" 0 "powercut log --dump: exit status"
# Each record: type, offset, length, flags, and whether it came from an NBD
# connection (nbd) or the control socket (ctl).
got=$(awk '!/^#/ && $4 != "done" { c = $3 == 0 ? "ctl" : "nbd"; $1 = $2 = $3 = ""; sub(/^ +/, ""); print c, $0 }' <<<"$dump")
# each flush and FUA write was answered: a DONE record after it names it
assert_eq "$(awk '$4 == "done" { sub("record=", "", $5); print $5 }' <<<"$dump" | sort -n | tr '\n' ' ')" \
  "$(awk '$4 == "flush" || / fua/ { print $1 }' <<<"$dump" | sort -n | tr '\n' ' ')" "a DONE for each flush and FUA write"
expected="nbd write offset=0 length=65536
nbd write offset=65536 length=4096 fua
nbd flush
nbd write offset=1048576 length=1048576
nbd trim offset=1048576 length=524288
nbd write-zeroes offset=4194304 length=262144 no-hole
nbd write offset=5242880 length=131072
nbd write-zeroes offset=5242880 length=131072
nbd write offset=66060288 length=1048576
nbd flush
ctl mark name=after-qemu-io paths=0 durable=0
nbd write offset=8388608 length=4096 fua
nbd flush
ctl mark name=second.mark_2 paths=0 durable=0
ctl end"
# the log holds every request, in the order the client made them
assert_eq "$got" "$expected" "records in the log"
# record numbers count up from 0 without a gap
assert_eq "$(awk '!/^#/ && $1 != NR - 1 { print "record " NR - 1 " numbered " $1 }' <<<"$dump")" "" "record numbers"
# times never go backwards
assert_eq "$(awk '!/^#/ { if ($2 + 0 < t) print "record " $1 " at " $2 " after " t; t = $2 + 0 }' <<<"$dump")" "" "record times"
# the dump ends clean
assert_match "$(tail -n 1 <<<"$dump")" '^# end: clean' "end of the dump"

read_log
# the summary reads too
assert_eq "$log_rc" 0 "powercut log: exit status (stderr: $log_err)"
# it counts 6 writes, 2 of them FUA
assert_eq "$(count write) $(sed -n 's/^ *write  *[0-9]* (\([0-9]*\) with fua)/\1/p' <<<"$summary")" "6 2" "write records"
# one trim
assert_eq "$(count trim)" 1 "trim records"
# two write-zeroes
assert_eq "$(count write-zeroes)" 2 "write-zeroes records"
# three flushes
assert_eq "$(count flush)" 3 "flush records"
# the marks in order, with their names
assert_eq "$(sed -n 's/^  record [0-9]* at [0-9.]* s: \([^ ]*\) .*/\1/p' <<<"$summary" | tr '\n' ' ')" "after-qemu-io second.mark_2 " "marks"
# the log ends clean
assert_eq "$(field end)" "clean (stopped)" "end"
