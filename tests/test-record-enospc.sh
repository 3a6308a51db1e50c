#!/usr/bin/env bash
# test-record-enospc.sh: a full log disk fails writes with ENOSPC, every write the client saw succeed is in a log that still reads, and stop says whether the end record fit.
. "${top_srcdir:-$(dirname "$0")/..}/tests/functions.sh"
requires_root
requires qemu-io mount umount

# The log on a 2 MiB tmpfs; the disk is 16 MiB.
mkdir "$tmp/small"
umount_small () { ! is_mounted "$tmp/small" || umount "$tmp/small"; }
cleanup_fn umount_small
mount -t tmpfs -o size=2M tmpfs "$tmp/small"
log=$tmp/small/log
start_recorder --size 16M

# 48 writes of 64 KiB (3 MiB with their records), each with its own byte
# (1..48) at its own offset; then the client flushes.
cmds=()
for i in $(seq 1 48); do
  cmds+=(-c "write -P $i $(( i * 65536 )) 64k")
done
run qemu-io -t none -f raw "$uri" "${cmds[@]}" -c flush
qemu_out=$out$err
# some writes failed, with ENOSPC
assert_match "$qemu_out" 'write failed: No space left on device' "qemu-io output"
# no write failed in any other way
assert_eq "$(grep 'failed' <<<"$qemu_out" | grep -v 'No space left' || true)" "" "qemu-io failures other than ENOSPC"
acked=$(sed -n 's|^wrote 65536/65536 bytes at offset \([0-9]*\)$|\1|p' <<<"$qemu_out")
# some writes succeeded before the log disk was full
assert_ge "$(grep -c . <<<"$acked")" 10 "writes acknowledged"
# some did not
assert_ge "$(grep -c 'No space left' <<<"$qemu_out")" 1 "writes refused"

# While the recorder still runs, the log reads and holds every acknowledged write.
read_log
# powercut log reads the log of a full disk
assert_eq "$log_rc" 0 "powercut log on the full log: exit status (stderr: $log_err)"
dump_log
logged=$(awk '$4 == "write" { sub(/offset=/, "", $5); print $5 }' <<<"$dump")
# every write the client saw succeed is in the log
assert_eq "$(comm -23 <(sort <<<"$acked") <(sort <<<"$logged") | tr '\n' ' ')" "" "acknowledged writes missing from the log"
# and the log holds no write the client saw fail
assert_eq "$(comm -13 <(sort <<<"$acked") <(sort <<<"$logged") | tr '\n' ' ')" "" "refused writes in the log"
# no record is cut or corrupt: the log ends on a record boundary
assert_match "$(tail -n 1 <<<"$dump")" '^# end: torn: the recording was cut after record' "end of the running log"

# The disk holds the acknowledged writes, and not the refused ones.
reads=()
for i in $(seq 1 48); do
  off=$(( i * 65536 ))
  if grep -qx "$off" <<<"$acked"; then p=$i; else p=0; fi
  reads+=(-c "read -P $p $off 64k")
done
run qemu-io -r -f raw "$uri" "${reads[@]}"
# acknowledged writes read back; refused ones left zeros (as the log says)
assert_eq "$rc:$(grep -c 'verification failed' <<<"$out" || true)" 0:0 "reads after ENOSPC: $(grep -B1 'verification failed' <<<"$out" || true)"

# Fill the rest with write-zeroes (56-byte records, no data) until they
# fail too: now not even the END record fits.
cmds=()
for i in $(seq 1 1500); do
  cmds+=(-c "write -z $(( i % 64 * 512 )) 512")
done
run qemu-io -t none -f raw "$uri" "${cmds[@]}"
zeroed=$(grep -c '^wrote 512/512 bytes' <<<"$out" || true)
# write-zeroes succeed while there is room
assert_ge "$zeroed" 1 "write-zeroes acknowledged"
# then fail with ENOSPC
assert_match "$out$err" 'No space left on device' "write-zeroes on a full log disk"

# Stop: the recorder exits either way; "powercut stop" succeeds if the END
# record fit, and says why not if it did not.
run powercut stop --control "$ctl"
stop_rc=$rc stop_err=$err
wait_recorder_exit
read_log
# the log still reads after stop
assert_eq "$log_rc" 0 "powercut log after stop: exit status (stderr: $log_err)"
# stop's answer agrees with the log: clean if it succeeded, cut at a record boundary if not
assert_match "$stop_rc: $(field end)" '^(0: clean \(stopped\)|2: torn: the recording was cut after record)' "powercut stop (stderr: $stop_err) and end"
# a failed stop says why
[ "$stop_rc" = 0 ] || assert_match "$stop_err" 'No space left on device' "powercut stop: error"
# all acknowledged writes are still there
assert_eq "$(count write)" "$(grep -c . <<<"$acked")" "write records after stop"
# and all acknowledged write-zeroes
assert_eq "$(count write-zeroes)" "$zeroed" "write-zeroes records after stop"
