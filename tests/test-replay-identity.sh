#!/usr/bin/env bash
# test-replay-identity.sh: replay --at end, mark:NAME and a flush's record number rebuild byte for byte the device a real client saw; drop and torn ids rebuild the right bytes; bad --at values exit 2 with one line.
. "$top_srcdir/tests/functions.sh"
requires qemu-io qemu-img nbdcopy cmp

start_recorder --size 32M

# session A: distinct patterns, overlapping writes, a FUA write, sector-sized
# writes, a trim and write-zeroes (with and without unmap); qemu-io flushes
# when it closes.
run qemu-io -t none -f raw "$uri" \
    -c 'write -P 0x11 0 1M' \
    -c 'write -P 0x12 512k 64k' \
    -c 'write -f -P 0x13 2M 4k' \
    -c 'write -P 0x14 3M 512' \
    -c 'write -P 0x15 3584 1536' \
    -c 'flush' \
    -c 'write -P 0x16 4M 2M' \
    -c 'discard 4M 1M' \
    -c 'write -z 5M 256k' \
    -c 'write -z -u 5632k 128k' \
    -c 'write -P 0x17 31M 1M'
# session A's requests succeed
assert_eq "$rc:$(grep -c failed <<<"$out$err" || true)" 0:0 "qemu-io session A (stdout: $out; stderr: $err)"
run powercut mark --control "$ctl" first
# a mark after session A
assert_eq "$rc" 0 "powercut mark first: exit status (stderr: $err)"
run qemu-img convert -f raw -O raw "$uri" "$tmp/first.img"
# the device at the mark, as qemu-img reads it
assert_eq "$rc" 0 "qemu-img convert at mark first: exit status (stderr: $err)"

# session B: overwrites, a trim over old data, zeroes over old data.
run qemu-io -t none -f raw "$uri" \
    -c 'write -P 0x21 256k 256k' \
    -c 'discard 0 128k' \
    -c 'write -z 768k 64k' \
    -c 'write -P 0x22 4M 4k' \
    -c 'write -f -P 0x23 8M 1M' \
    -c 'write -P 0x24 6M 512'
# session B's requests succeed
assert_eq "$rc:$(grep -c failed <<<"$out$err" || true)" 0:0 "qemu-io session B (stdout: $out; stderr: $err)"
run nbdcopy "$uri" "$tmp/mid.img"
# the device after session B, as nbdcopy reads it
assert_eq "$rc" 0 "nbdcopy after session B: exit status (stderr: $err)"

# session C: two writes to fresh ranges in one flush epoch (for drop and
# torn ids), then more changes.
run qemu-io -t none -f raw "$uri" \
    -c 'write -P 0xc1 16M 64k' \
    -c 'write -P 0xc2 17M 64k' \
    -c 'write -P 0x31 0 4k' \
    -c 'discard 31M 512k'
# session C's requests succeed
assert_eq "$rc:$(grep -c failed <<<"$out$err" || true)" 0:0 "qemu-io session C (stdout: $out; stderr: $err)"
run powercut mark --control "$ctl" last
# a mark after session C
assert_eq "$rc" 0 "powercut mark last: exit status (stderr: $err)"
run qemu-img convert -f raw -O raw "$uri" "$tmp/end.img"
# the device at the end
assert_eq "$rc" 0 "qemu-img convert at the end: exit status (stderr: $err)"
stop_recorder

dump_log
# the log reads
assert_eq "$dump_rc" 0 "powercut log --dump: exit status"
nrec=$(grep -vc '^#' <<<"$dump")
# rec AWK-CONDITION: the number of the first record that matches
rec () { awk "!/^#/ && ($1) { print \$1; exit }" <<<"$dump"; }
mark_first=$(rec '/ mark name=first /')
mark_last=$(rec '/ mark name=last /')
# session C's two writes, and the flush that ends session B (the last one
# before C's first write)
c1=$(rec '$4 == "write" && $5 == "offset=16777216"')
c2=$(rec '$4 == "write" && $5 == "offset=17825792"')
flush_b=$(awk -v c="$c1" '!/^#/ && $1 < c && $4 == "flush" { f = $1 } END { print f }' <<<"$dump")
# the log has the marks, the flush that ends session B and session C's writes
assert_match "$mark_first $mark_last $flush_b $c1 $c2" '^[0-9]+ [0-9]+ [0-9]+ [0-9]+ [0-9]+$' "records found in the dump: $dump"
# session B's flush comes after the mark first, and c2 follows c1 in the same epoch
assert_eq "$(( mark_first < flush_b && flush_b < c1 && c1 < c2 ))" 1 "order of records $mark_first $flush_b $c1 $c2"
# (no flush between c1 and c2)
assert_eq "$(awk -v a="$c1" -v b="$c2" '!/^#/ && $1 > a && $1 < b && $4 == "flush"' <<<"$dump")" "" "flushes between $c1 and $c2"

# replay_cmp AT REF: replay --at AT must be byte-identical to REF.
replay_cmp ()
{
  run powercut replay "$log" --at "$1" -o "$tmp/r.img"
  # replay succeeds, and says nothing
  assert_eq "$rc:$out:$err" "0::" "replay --at $1: exit status, stdout and stderr"
  run cmp "$tmp/r.img" "$2"
  # the image is byte for byte what the client saw
  assert_eq "$rc" 0 "replay --at $1 vs ${2##*/}: $out"
}
replay_cmp end "$tmp/end.img"
replay_cmp "mark:last" "$tmp/end.img"
replay_cmp "mark:first" "$tmp/first.img"
replay_cmp "$mark_first" "$tmp/first.img"
replay_cmp "$flush_b" "$tmp/mid.img"
replay_cmp "$(( nrec - 1 ))" "$tmp/end.img"
# an output file that exists (bigger, with other bytes) is replaced
head -c 40M /dev/zero | tr '\0' '\377' >"$tmp/r.img"
replay_cmp end "$tmp/end.img"

# qemu_read IMAGE CMD...: qemu-io reads (read -P) on an image file; fails on a mismatch.
qemu_read ()
{
  local img=$1
  shift
  run qemu-io -r -f raw "$img" "$@"
  # every range holds the expected bytes
  assert_eq "$rc:$(grep -c 'verification failed' <<<"$out" || true)" 0:0 "reads on ${img##*/} ($*): $out $err"
}

# A data record's number: the state right after it.
run powercut replay "$log" --at "$c1" -o "$tmp/c1.img"
# replay at a write's record number works
assert_eq "$rc" 0 "replay --at $c1: exit status (stderr: $err)"
qemu_read "$tmp/c1.img" -c 'read -P 0xc1 16M 64k' -c 'read -P 0 17M 64k' -c 'read -P 0x17 31M 1M'
# c2 with c1 lost (reorder): c2's bytes are there, c1's range is still zero
run powercut replay "$log" --at "$c2/drop:$c1" -o "$tmp/drop.img"
# replay of a reorder id works
assert_eq "$rc" 0 "replay --at $c2/drop:$c1: exit status (stderr: $err)"
qemu_read "$tmp/drop.img" -c 'read -P 0 16M 64k' -c 'read -P 0xc2 17M 64k'
# c2 torn: only its first 4 sectors (2 KiB) persisted, c1 kept
run powercut replay "$log" --at "$c2/torn:0-3" -o "$tmp/torn.img"
# replay of a torn id works
assert_eq "$rc" 0 "replay --at $c2/torn:0-3: exit status (stderr: $err)"
qemu_read "$tmp/torn.img" -c 'read -P 0xc1 16M 64k' -c 'read -P 0xc2 17M 2k' -c "read -P 0 $(( (17 << 20) + 2048 )) 63488"
# both: c1 lost, c2 has only its last sector
run powercut replay "$log" --at "$c2/drop:$c1/torn:127" -o "$tmp/both.img"
# replay of a reorder and torn id works
assert_eq "$rc" 0 "replay --at $c2/drop:$c1/torn:127: exit status (stderr: $err)"
qemu_read "$tmp/both.img" -c 'read -P 0 16M 64k' -c 'read -P 0 17M 65024' -c "read -P 0xc2 $(( (17 << 20) + 65024 )) 512"

# --- Bad points: exit 2, one line on stderr naming the value, no image. ------
# bad_at AT ERE: replay --at AT fails as it should, its message matching ERE.
bad_at ()
{
  rm -f "$tmp/bad.img"
  run powercut replay "$log" --at "$1" -o "$tmp/bad.img"
  # exit status 2 for a bad --at
  assert_eq "$rc" 2 "replay --at '$1': exit status (stderr: $err)"
  # exactly one line of error, on stderr, nothing on stdout
  assert_eq "$(grep -c . <<<"$err") $out" "1 " "replay --at '$1': lines on stderr ($err) and stdout"
  # the message names the command and the bad value, and says what is wrong
  assert_match "$err" "^powercut replay: .*--at $(sed 's/[][\.*^$]/\\&/g' <<<"$1").*$2" "replay --at '$1': message"
  # no image is left behind
  assert_eq "$(ls "$tmp/bad.img" 2>/dev/null || true)" "" "replay --at '$1': output file"
}
bad_at "$nrec" 'beyond'
bad_at 99999999 'beyond'
bad_at mark:nope 'mark'
# a drop after the point, and the point itself, are not in flight
bad_at "12/drop:13" 'flight'
bad_at "$c2/drop:$c2" 'flight'
bad_at garbage 'not a crash point'
bad_at "" 'not a crash point'
bad_at -1 'not a crash point'
bad_at 12abc 'not a crash point'
bad_at "$c2/torn:128" 'sector'
bad_at "$flush_b/torn:0" 'write'

# Other errors: a missing log, a missing -o.
run powercut replay "$tmp/nope.log" --at end -o "$tmp/bad.img"
# a missing log: exit 2, one line naming it
assert_eq "$rc $(grep -c . <<<"$err")" "2 1" "replay of a missing log (stderr: $err)"
# (the line names the log)
assert_match "$err" "nope\\.log" "replay of a missing log: message"
run powercut replay "$log" --at end
# no -o: a usage error, exit 2
assert_eq "$rc" 2 "replay without -o (stderr: $err)"

# A flush makes every write before it durable: nothing is in flight at a
# flush, so a drop there names no state any model has.
bad_at "$flush_b/drop:$(awk -v f="$flush_b" '!/^#/ && $1 < f && $4 == "write" { w = $1 } END { print w }' <<<"$dump")" 'flight'
