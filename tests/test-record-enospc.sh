#!/usr/bin/env bash
# test-record-enospc.sh: a full log disk fails writes with ENOSPC, every write the client saw succeed is in a log that still reads and can be checked, and stop says whether the end record fit.  Trials: log disks of a few sizes, so the disk fills at different places in a record.
. "${top_srcdir:-$(dirname "$0")/..}/tests/functions.sh"
requires_root
requires qemu-io mount umount mkfs.ext4

# The device starts as an ext4 image, so that the log can be checked.
truncate -s 16M "$tmp/base.img"
mkfs.ext4 -q -F "$tmp/base.img" || fail "mkfs.ext4"
mkdir "$tmp/small"
umount_small () { ! is_mounted "$tmp/small" || umount "$tmp/small"; }
cleanup_fn umount_small

trial ()
{
  # The log on a tmpfs of $1; the disk is 16 MiB.
  mount -t tmpfs -o size="$1" tmpfs "$tmp/small"
  log=$tmp/small/log
  start_recorder --base "$tmp/base.img"

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
    cmds+=(-c "write -z $(( 15 << 20 | i % 64 * 512 )) 512")
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

  # The log of a full disk can be checked: every crash point gets a
  # verdict (the writes went over the filesystem's metadata, so some may
  # be damaged: exit 1 is a finding, 2 would be a failure to check).
  run powercut check "$log" --base "$tmp/base.img" --model write --jobs 2
  assert_match "$rc" '^[01]$' "powercut check of the full log: exit status (stderr: $err)"
  assert_match "$out" "[1-9][0-9]* crash points" "powercut check of the full log"
  echo "trial $1: $(grep -m1 "crash points" <<<"$out"), exit $rc"
  umount "$tmp/small"
}

trials=0
for size in 2048k 2085k 2600k; do
  trial "$size"
  trials=$(( trials + 1 ))
done
echo "log disk full: $trials trials, no acknowledged request lost"
