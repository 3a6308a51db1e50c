#!/usr/bin/env bash
# test-cli-badinput.sh: bad input at the command line (wrong sizes, missing
# files, a log from a newer format version, a log cut or with a byte
# flipped, a device that is not ext2/3/4, a manifest path with ".." or a
# NUL) is a clear one-line error naming what is at fault, and exit 2.
. "$top_srcdir/tests/functions.sh"
requires qemu-io mkswap

edit=$top_builddir/tests/log-edit

# one_error WHAT PATTERN: the last run exited 2 with one line on stderr
# that names the command and matches PATTERN.
one_error ()
{
  # bad input exits with status 2
  assert_eq "$rc" 2 "$1: exit status (stderr: $err)"
  # with one line on stderr (and for misuse, a hint to read --help)
  assert_eq "$(grep -v "^try 'powercut" <<<"$err" | grep -c .)" 1 "$1: lines on stderr ($err)"
  # that starts with the command and says what is wrong
  assert_match "$err" "^powercut [a-z]+: " "$1: message"
  assert_match "$err" "$2" "$1: message"
}

# A small recording: writes, a flush, a trim, a mark with a manifest
# holding xx/f, then a clean stop.
mkdir -p "$tmp/tree/xx"
echo hello >"$tmp/tree/xx/f"
start_recorder --size 1M
run qemu-io -f raw -c 'write -P 1 0 1k' -c flush -c 'discard 4k 4k' "$uri"
assert_eq "$rc" 0 "qemu-io ($err)"
run powercut mark --control "$ctl" m1 --manifest "$tmp/tree"
assert_eq "$rc" 0 "powercut mark ($err)"
# a manifest directory that does not exist
run powercut mark --control "$ctl" m2 --manifest "$tmp/nothing"
one_error "mark --manifest on a missing directory" "$tmp/nothing: No such file or directory"
stop_recorder
good=$log

# --- Missing files -----------------------------------------------------------
run powercut log "$tmp/missing"
one_error "log on a missing log" "$tmp/missing: No such file or directory"
run powercut log --dump "$tmp/missing"
one_error "log --dump on a missing log" "$tmp/missing: No such file or directory"
run powercut replay "$tmp/missing" --at end -o "$tmp/x.img"
one_error "replay of a missing log" "$tmp/missing: No such file or directory"
run powercut check "$tmp/missing"
one_error "check of a missing log" "$tmp/missing: No such file or directory"
run powercut log --export dm-log-writes "$tmp/missing" "$tmp/out.dm"
one_error "export of a missing log" "$tmp/missing: No such file or directory"
run powercut merge "$tmp/missing.json"
one_error "merge of a missing report" "$tmp/missing.json: No such file or directory"
run powercut log --import dm-log-writes "$tmp/missing.dm" "$tmp/new.pclog"
one_error "import of a missing file" "$tmp/missing.dm: No such file or directory"
run powercut record --log "$tmp/l2" --base "$tmp/missing.img" --socket "$tmp/s2" --control "$tmp/c2"
one_error "record --base on a missing image" "$tmp/missing.img: No such file or directory"
run powercut replay "$good" --at end -o "$tmp/nodir/x.img"
one_error "replay into a missing directory" "$tmp/nodir/x.img: No such file or directory"
# nothing was made by the refused commands
[ ! -e "$tmp/l2" ] && [ ! -e "$tmp/new.pclog" ] && [ ! -e "$tmp/out.dm" ] ||
  fail "a refused command left a file"

# --- Wrong sizes -------------------------------------------------------------
head -c 1000 /dev/zero >"$tmp/odd.img"
run powercut record --log "$tmp/l3" --base "$tmp/odd.img" --socket "$tmp/s3" --control "$tmp/c3"
one_error "record --base of 1000 bytes" "$tmp/odd.img"
truncate -s 1M "$tmp/base.img"
log=$tmp/based.log
start_recorder --base "$tmp/base.img"
stop_recorder
truncate -s 2M "$tmp/big.img"
run powercut replay "$log" --at end --base "$tmp/big.img" -o "$tmp/x.img"
one_error "replay --base of the wrong size" "$tmp/big.img: "
run powercut check "$log" --base "$tmp/big.img"
one_error "check --base of the wrong size" "$tmp/big.img: not the size of the recorded device"
# a base image given for a recording that started from zeros
run powercut check "$good" --base "$tmp/base.img"
one_error "check --base on a log from zeros" "started from zeros"
# TCP ports out of range (a resolver would take 99999 as 34463)
run powercut record --log "$tmp/l4" --size 1M --listen localhost:99999
one_error "record --listen localhost:99999" "localhost:99999: not \[HOST:\]PORT with a port from 1 to 65535"
[ ! -e "$tmp/l4" ] || fail "a refused record left a log"
run powercut mark --control tcp:localhost:99999 m
one_error "mark --control tcp:localhost:99999" "tcp:localhost:99999: not tcp:HOST:PORT"
for size in 12Q 0 513 2T; do
  run powercut run --size "$size" --workload replace-rename --out "$tmp/run"
  one_error "run --size $size" "$size"
done
# a settle that is not a number of seconds from 0 to 3600
for settle in -1 abc 1e3 0x10 3601 '' 1.2.3 inf; do
  run powercut run --settle "$settle" --out "$tmp/run" -- true
  one_error "run --settle '$settle'" "--settle $settle: not a number of seconds from 0 to 3600"
done
[ ! -e "$tmp/run" ] || fail "a refused run made its output directory"

# --- A log from a newer format version ---------------------------------------
cp "$good" "$tmp/newer.log"
"$edit" "$tmp/newer.log" version 2 || fail "log-edit version"
for sub in log check "replay --at end -o $tmp/x.img"; do
  run powercut $sub "$tmp/newer.log"
  one_error "$sub on a version 2 log" "$tmp/newer.log: written by a newer powercut"
done

# --- A log cut short ---------------------------------------------------------
head -c 100 "$good" >"$tmp/cut-header.log"
for sub in log check; do
  run powercut $sub "$tmp/cut-header.log"
  one_error "$sub on a log cut in its header" "$tmp/cut-header.log: a powercut log cut short inside its header"
done
# cut inside a record: readable up to there, and said to be torn (not an
# error: it is what a killed recorder leaves)
head -c 700 "$good" >"$tmp/cut-record.log"
read_log "$tmp/cut-record.log"
assert_eq "$log_rc" 0 "log on a log cut in a record ($log_err)"
assert_match "$(field end)" "^torn: .* at offset 256 " "end of a log cut in a record"

# --- One byte flipped --------------------------------------------------------
# Every byte of every record (one in 37 under a wrapper: valgrind is slow):
# log, and check or replay for a few, name the record and its offset.
dump_log "$good"
size=$(stat -c %s "$good")
# Record starts: the dump gives each record's type and length; a mark's
# payload is what the others leave.
starts=$(awk -v size="$size" 'BEGIN { n = 0 }
  /^#/ { next }
  { t[n] = $4; l[n] = 0
    for (i = 5; i <= NF; i++) if ($i ~ /^length=/) { split($i, a, "="); l[n] = a[2] }
    if (t[n] != "write") l[n] = 0
    n++ }
  END { sum = 256 + 56 * n; for (i = 0; i < n; i++) sum += l[i]
        for (i = 0; i < n; i++) if (t[i] == "mark") l[i] = size - sum
        off = 256; for (i = 0; i < n; i++) { print off, (t[i] == "write" ? l[i] : 0); off += 56 + l[i] } }' <<<"$dump")
[ "$(wc -l <<<"$starts")" -ge 6 ] || fail "record starts: $starts"

# A write's data is one checksummed run of bytes: one byte in 29 of it is
# flipped, every byte of the headers, marks and the rest.
step=1
[ -z "$POWERCUT_WRAPPER" ] || step=37
checked=0
for (( pos = 256; pos < size; pos += step )); do
  rec=0 at=256 data=0
  while read -r s l; do
    (( s <= pos )) || break
    at=$s data=$l
    rec=$(( rec + 1 ))
  done <<<"$starts"
  rec=$(( rec - 1 ))
  if (( pos >= at + 56 && pos < at + 56 + data && (pos - at) % 29 != 0 )); then
    continue
  fi
  cp "$good" "$tmp/flip.log"
  byte=$(od -An -tu1 -j "$pos" -N 1 "$good")
  printf %b "\\0$(printf %03o $(( byte ^ 0x10 )))" |
    dd of="$tmp/flip.log" bs=1 seek="$pos" conv=notrunc status=none
  run powercut log "$tmp/flip.log"
  one_error "log with byte $pos flipped" "$tmp/flip.log: record $rec at offset $at: "
  if (( pos % 97 == 0 )); then
    run powercut check "$tmp/flip.log"
    one_error "check with byte $pos flipped" "record $rec at offset $at: "
  fi
  checked=$(( checked + 1 ))
done
# the loop went over the records
assert_ge "$checked" 40 "bytes flipped"

# --- A device that is not ext2/3/4 -------------------------------------------
run powercut check "$good"
one_error "check of a recording with no filesystem" \
  "$good: no ext2, ext3, ext4, xfs, btrfs or f2fs filesystem on the device at the end of the recording \(blkid finds none\)"
truncate -s 1M "$tmp/swap.img"
mkswap -q "$tmp/swap.img" >/dev/null 2>&1 || fail "mkswap"
log=$tmp/swap.log
start_recorder --base "$tmp/swap.img"
run qemu-io -f raw -c 'write -P 1 64k 4k' -c flush "$uri"
stop_recorder
run powercut check "$log" --base "$tmp/swap.img"
one_error "check of a recording of a swap device" "blkid finds swap"

# --- A manifest path with ".." or a NUL --------------------------------------
mark_rec=$(awk '$4 == "mark" { print $1 }' <<<"$dump")
cp "$good" "$tmp/dotdot.log"
"$edit" "$tmp/dotdot.log" replace "$mark_rec" xx/f ../f || fail "log-edit replace"
cp "$good" "$tmp/nul.log"
"$edit" "$tmp/nul.log" replace "$mark_rec" xx/f 'x%00/f' || fail "log-edit replace"
for f in dotdot nul; do
  case $f in
    dotdot) what="not a relative path of names" ;;
    nul) what="a path with a NUL byte" ;;
  esac
  for sub in log check; do
    run powercut $sub "$tmp/$f.log"
    one_error "$sub with a $f manifest path" \
      "$tmp/$f.log: record $mark_rec: the mark cannot be decoded: entry 1: $what"
  done
done
