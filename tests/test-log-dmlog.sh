#!/usr/bin/env bash
# test-log-dmlog.sh: dm-log-writes interchange: an exported log replays (by
# an independent reader of the format, as xfstests' replay-log would) to the
# same image as powercut replay, and an imported log gives the same again.
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
assert_match "$err" "back.log: no ext2/ext3/ext4 filesystem on the device at the end" \
  "check of the imported log"

printf 'not a dm log at all, just some text long enough....%0600d' 0 >"$tmp/bad.dm"
run powercut log --import dm-log-writes "$tmp/bad.dm" "$tmp/bad.log"
# a file that is not a dm-log-writes log: exit 2, one line
assert_eq "$rc" 2 "import of garbage"
assert_match "$err" 'not a dm-log-writes log' "garbage message"
