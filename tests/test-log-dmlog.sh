#!/usr/bin/env bash
# test-log-dmlog.sh: dm-log-writes interchange: an exported log replays (by
# an independent reader of the format, as xfstests' replay-log would) to the
# same image as powercut replay, and an imported log gives the same again.
# Export, import and dump write to a pipe, /dev/stdout or /dev/null as to a
# file (no fsync there), report a write error in one line, and end quietly
# on SIGPIPE, as cat does, when the reader goes away.
source "$top_srcdir/tests/functions.sh"
requires qemu-io python3 cmp

start_recorder --size 16M
run qemu-io -f raw "$uri" -c 'write -P 0x11 0 64k' -c 'write -f -P 0x22 1M 8k' \
    -c 'discard 0 4k' -c 'write -z 2M 16k' -c 'flush' -c 'write -P 0x33 4k 4k'
assert_eq "$rc" 0 "qemu-io writes ($err)"
run powercut mark --control "$ctl" after-writes
assert_eq "$rc" 0 "mark"
stop_recorder

run powercut log --export dm-log-writes "$log" "$tmp/dm.log"
# export succeeds
assert_eq "$rc" 0 "export ($err)"

# The same export through a pipe: the same bytes, exit 0, nothing on stderr.
rc=0
powercut log --export dm-log-writes "$log" /dev/stdout 2>"$tmp/pipe.err" \
  | cat >"$tmp/dm-pipe.log" || rc=$?
assert_eq "$rc:$(cat "$tmp/pipe.err")" 0: "export to /dev/stdout, a pipe"
run cmp "$tmp/dm.log" "$tmp/dm-pipe.log"
assert_eq "$rc" 0 "export through a pipe vs to a file ($out)"
rc=0
bytes=$(powercut log --export dm-log-writes "$log" /dev/stdout | wc -c) || rc=$?
assert_eq "$rc:$bytes" "0:$(stat -c %s "$tmp/dm.log")" "export to /dev/stdout | wc -c"
# /dev/stdout redirected to a file is a file again (and is synced)
rc=0
powercut log --export dm-log-writes "$log" /dev/stdout >"$tmp/dm-stdout.log" \
  2>"$tmp/pipe.err" || rc=$?
assert_eq "$rc:$(cat "$tmp/pipe.err")" 0: "export to /dev/stdout, a file"
run cmp "$tmp/dm.log" "$tmp/dm-stdout.log"
assert_eq "$rc" 0 "export to /dev/stdout, a file, vs to a file ($out)"
run powercut log --export dm-log-writes "$log" /dev/null
# /dev/null, a character device, takes it all
assert_eq "$rc:$err" 0: "export to /dev/null"
run powercut log --export dm-log-writes "$log" /dev/full
# a write error: exit 2, one line naming the output and the failed step
assert_eq "$rc" 2 "export to /dev/full"
assert_eq "$err" "powercut log: /dev/full: write: No space left on device" "export to /dev/full"

# An independent replay of the dm-log-writes format onto a zeroed image.
cat >"$tmp/replay.py" <<'PY'
import struct, sys
log, out, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
d = open(log, "rb").read()
magic, version, n, ss = struct.unpack_from("<QQQI", d, 0)
assert magic == 0x6a736677736872 and version == 1, "bad super"
img = bytearray(size)
pos, marks, kinds = ss, [], []
for i in range(n):
    sector, nr, flags, dlen = struct.unpack_from("<QQQQ", d, pos)
    pos += ss
    if flags & 8:
        marks.append(d[pos - ss + 32:pos - ss + 32 + dlen].decode()); kinds.append("mark")
    elif flags & 4:
        img[sector * ss:(sector + nr) * ss] = bytes(nr * ss); kinds.append("discard")
    elif nr:
        img[sector * ss:(sector + nr) * ss] = d[pos:pos + nr * ss]; pos += nr * ss
        kinds.append("fua" if flags & 2 else "write")
    elif flags & 1:
        kinds.append("flush")
open(out, "wb").write(img)
print(" ".join(kinds)); print(" ".join(marks))
PY
run python3 "$tmp/replay.py" "$tmp/dm.log" "$tmp/dm.img" $((16 << 20))
# the exported log parses as dm-log-writes
assert_eq "$rc" 0 "independent dm-log-writes reader ($err)"
kinds=$(head -1 <<<"$out")
# FUA, discard, flush and the mark survive the export
assert_match "$kinds" 'fua' "FUA entry"
assert_match "$kinds" 'discard' "discard entry"
assert_match "$kinds" 'flush' "flush entry"
assert_eq "$(tail -1 <<<"$out")" "after-writes" "mark name"

run powercut replay "$log" --at end -o "$tmp/pc.img"
assert_eq "$rc" 0 "replay ($err)"
# the dm-log-writes replay gives the same image as powercut's
run cmp "$tmp/dm.img" "$tmp/pc.img"
assert_eq "$rc" 0 "exported image vs powercut replay ($out)"

run powercut log --import dm-log-writes "$tmp/dm.log" "$tmp/back.log" --size 16M
# import succeeds
assert_eq "$rc" 0 "import ($err)"
run powercut replay "$tmp/back.log" --at end -o "$tmp/back.img"
run cmp "$tmp/back.img" "$tmp/pc.img"
# the imported log replays to the same image
assert_eq "$rc" 0 "imported image vs original ($out)"
read_log "$tmp/back.log"
# ... with the flushes, trims, FUA and the mark in it
assert_ge "$(count flush)" 2 "flushes after import"
assert_eq "$(count trim)" 1 "trims after import"
assert_match "$summary" 'after-writes' "mark after import"
assert_match "$summary" 'write +[0-9]+ \([0-9]+ with fua\)' "FUA after import"
run powercut check "$tmp/back.log" -q
# check reads the imported log, records and mark, through to the device
# at its end, which holds no filesystem here: that is its only complaint
assert_eq "$rc" 2 "check of the imported log ($err)"
assert_match "$err" "back.log: no ext2, ext3, ext4, xfs, btrfs or f2fs filesystem on the device at the end" \
  "check of the imported log"

# Import to a pipe and to /dev/null: exit 0; through the pipe, the same log
# (its start time aside: compare what it replays to).
rc=0
powercut log --import dm-log-writes "$tmp/dm.log" /dev/stdout --size 16M 2>"$tmp/pipe.err" \
  | cat >"$tmp/back-pipe.log" || rc=$?
assert_eq "$rc:$(cat "$tmp/pipe.err")" 0: "import to /dev/stdout, a pipe"
assert_eq "$(stat -c %s "$tmp/back-pipe.log")" "$(stat -c %s "$tmp/back.log")" \
  "import through a pipe: size"
run powercut replay "$tmp/back-pipe.log" --at end -o "$tmp/back-pipe.img"
run cmp "$tmp/back-pipe.img" "$tmp/pc.img"
assert_eq "$rc" 0 "import through a pipe: replayed image ($out)"
run powercut log --import dm-log-writes "$tmp/dm.log" /dev/null --size 16M
assert_eq "$rc:$err" 0: "import to /dev/null"

# Dump and summary: to /dev/null, exit 0; a write error, exit 2 and one
# line; a reader that goes away, SIGPIPE, quietly.
run powercut log --dump "$log"
dump_out=$out
rc=0
powercut log --dump "$log" 2>"$tmp/pipe.err" | cat >"$tmp/dump-pipe.txt" || rc=$?
assert_eq "$rc:$(cat "$tmp/pipe.err")" 0: "dump to a pipe"
assert_eq "$(cat "$tmp/dump-pipe.txt")" "$dump_out" "dump through a pipe"
for mode in --dump ""; do
  rc=0
  powercut log $mode "$log" >/dev/null 2>"$tmp/null.err" || rc=$?
  assert_eq "$rc:$(cat "$tmp/null.err")" 0: "log $mode to /dev/null"
  rc=0
  powercut log $mode "$log" >/dev/full 2>"$tmp/full.err" || rc=$?
  assert_eq "$rc" 2 "log $mode to /dev/full"
  assert_eq "$(cat "$tmp/full.err")" "powercut log: standard output: No space left on device" \
    "log $mode to /dev/full"
done
# A log of 20000 records, whose dump (over 64 KiB) cannot fit in a pipe:
# a reader that goes away ends it by SIGPIPE (141), quietly, as cat.
python3 - "$tmp/flushes.dm" <<'PY'
import struct, sys
n = 20000
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<QQQI", 0x6a736677736872, 1, n, 512).ljust(512, b"\0"))
    f.write(struct.pack("<QQQQ", 0, 0, 1, 0).ljust(512, b"\0") * n)
PY
run powercut log --import dm-log-writes "$tmp/flushes.dm" "$tmp/flushes.log"
assert_eq "$rc" 0 "import of 20000 flushes ($err)"
rc=0
lines=$(powercut log --dump "$tmp/flushes.log" | wc -l) || rc=$?
assert_eq "$rc:$lines" 0:20002 "dump of 20000 flushes and an end | wc -l"
rc=0
powercut log --dump "$tmp/flushes.log" 2>"$tmp/pipe.err" | head -n 1 >/dev/null || rc=$?
assert_eq "$rc:$(cat "$tmp/pipe.err")" 141: "dump to a pipe closed early"
# and its export (10 MiB) to a reader that goes away: SIGPIPE too
rc=0
powercut log --export dm-log-writes "$tmp/flushes.log" /dev/stdout 2>"$tmp/pipe.err" \
  | head -c 10 >/dev/null || rc=$?
assert_eq "$rc:$(cat "$tmp/pipe.err")" 141: "export to a pipe closed early"

printf 'not a dm log at all, just some text long enough....%0600d' 0 >"$tmp/bad.dm"
run powercut log --import dm-log-writes "$tmp/bad.dm" "$tmp/bad.log"
# a file that is not a dm-log-writes log: exit 2, one line
assert_eq "$rc" 2 "import of garbage"
assert_match "$err" 'not a dm-log-writes log' "garbage message"
