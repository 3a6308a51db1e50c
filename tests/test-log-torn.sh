#!/usr/bin/env bash
# test-log-torn.sh: a log cut at any byte reads up to its last whole record and says torn; a damaged record in the middle is an error naming it.
. "${top_srcdir:-$(dirname "$0")/..}/tests/functions.sh"
requires qemu-io truncate dd

# A short recording: write 4k, write 4k, flush, write 8k, flush, mark, end.
start_recorder --size 64M
run qemu-io -t none -f raw "$uri" -c 'write -P 1 0 4k' -c 'write -P 2 4k 4k' -c flush -c 'write -P 3 8k 8k'
# the recording is made
assert_eq "$rc" 0 "qemu-io: exit status (stderr: $err)"
run powercut mark --control "$ctl" m1
# with a mark
assert_eq "$rc" 0 "powercut mark: exit status (stderr: $err)"
stop_recorder

dump_log
types=$(dump_types)
# the recording is what the client did
# (each flush followed by its DONE: when the recorder answered it)
assert_eq "$types" "write write flush done write flush done mark end" "records"
# Where each record starts: the file header is 256 bytes, a record header
# 56, a write's payload its length, flush and end have none; the mark's
# payload is what is left.
size=$(stat -c %s "$log")
mapfile -t start < <(awk -v size="$size" '
  !/^#/ { t[NR - 1] = $4; l[NR - 1] = $6; n = NR }
  END {
    off = 256
    for (i = 0; i < n; i++) {
      print off
      if (t[i] == "write") { sub(/length=/, "", l[i]); off += 56 + l[i] }
      else if (t[i] == "mark") off = size - 56
      else off += 56
    }
    print off
  }' <<<"$dump")
# the records fill the file exactly
assert_eq "${start[9]}" "$size" "end of the last record"

# cut_at AT EXPECTED_RECORDS: a copy cut at byte AT reads, says torn, and has
# the whole records before AT.
cut_at ()
{
  cp "$log" "$tmp/cut"
  truncate -s "$1" "$tmp/cut"
  read_log "$tmp/cut"
  # a cut log reads (exit status 0)
  assert_eq "$log_rc" 0 "log cut at $1: exit status (stderr: $log_err)"
  # and says it ended torn
  assert_match "$(field end)" '^torn' "log cut at $1: end"
  # it has the records before the cut
  assert_eq "$(field records | cut -d' ' -f1)" "$2" "log cut at $1: records"
  dump_log "$tmp/cut"
  # the dump reads too and says torn
  assert_eq "$dump_rc:$(tail -n 1 <<<"$dump" | cut -c1-12)" "0:# end: torn:" "log cut at $1: dump"
}

cut_at 256 0                                # just the file header
cut_at $(( ${start[0]} + 20 )) 0            # inside the first record's header
cut_at $(( ${start[0]} + 55 )) 0            # one byte short of a whole header
cut_at $(( ${start[0]} + 56 )) 0            # a header without its data
cut_at $(( ${start[1]} + 56 + 1000 )) 1     # inside the second write's data
cut_at $(( ${start[2]} - 1 )) 1             # one byte short of a whole record
cut_at "${start[2]}" 2                      # at a record boundary (write | flush)
cut_at "${start[3]}" 3                      # at a record boundary (flush | done)
cut_at "${start[4]}" 4                      # at a record boundary (done | write)
cut_at $(( ${start[7]} + 60 )) 7            # inside the mark's payload
cut_at "${start[8]}" 8                      # everything but the end record
cut_at $(( size - 1 )) 8                    # inside the end record
# A cut exactly at a boundary is reported as such.
cut_at "${start[3]}" 3
# the end line names the last whole record
assert_match "$(field end)" 'cut after record 2' "log cut after record 2: end"

# A log shorter than its file header is not a log.
cp "$log" "$tmp/short"
truncate -s 100 "$tmp/short"
read_log "$tmp/short"
# it is refused with exit status 2
assert_eq "$log_rc" 2 "log cut inside its file header: exit status"

# flip AT WHAT: a copy with the byte at AT inverted is an error (exit 2)
# naming the record and its offset; sets $flip_err.
flip ()
{
  local b
  cp "$log" "$tmp/flip"
  b=$(od -An -tu1 -j "$1" -N1 "$log" | tr -d ' ')
  printf "\\$(printf '%03o' $(( 255 - b )))" |
    dd of="$tmp/flip" bs=1 seek="$1" conv=notrunc status=none
  read_log "$tmp/flip"
  flip_err=$log_err
  # a damaged log is an error
  assert_eq "$log_rc" 2 "byte $1 flipped ($2): exit status (end: $(field end))"
}

flip $(( ${start[4]} + 56 + 4000 )) "data of record 4"
# the error names the record, its offset and the reason
assert_match "$flip_err" "record 4 at offset ${start[4]}: bad checksum" "data of record 4 flipped: error"
# the summary says where the damage is
assert_match "$(field end)" "^corrupt: record 4 at offset ${start[4]}" "data of record 4 flipped: end"
# and counts the records before it
assert_eq "$(field records | cut -d' ' -f1)" 4 "data of record 4 flipped: records"

flip $(( ${start[3]} + 1 )) "magic of record 3"
# the error names the record and its offset
assert_match "$flip_err" "record 3 at offset ${start[3]}:" "magic of record 3 flipped: error"

flip $(( ${start[2]} + 40 )) "connection field of record 2"
# the error names the record and its offset
assert_match "$flip_err" "record 2 at offset ${start[2]}:" "header of record 2 flipped: error"

flip $(( ${start[1]} + 29 )) "payload length field of record 1"
# a damaged length is not mistaken for a torn end
assert_match "$flip_err" "record 1 at offset ${start[1]}:" "payload length of record 1 flipped: error"

flip $(( ${start[7]} + 60 )) "payload of the mark"
# the error names the mark's record and its offset
assert_match "$flip_err" "record 7 at offset ${start[7]}:" "mark payload flipped: error"

flip 30 "the file header's device size"
# a damaged file header: not a log
assert_match "$flip_err" "not a powercut log" "file header flipped: error"
