#!/usr/bin/env bash
# test-replay-devset.sh: two devices, one power cut.  Two recorders serve
# two disks, a and b, whose logs sit side by side in one directory; qemu-io
# writes to both, flushes interleaved, one after the other.  Then for every
# record of either log, "powercut replay DIR --at NAME:N -o OUT" writes
# both images, and each must equal a reference built here from the log
# files alone (powercut-log(5)): the device NAME's records 0..N, and the
# other's records logged by that instant on the clock the headers give.
# With --recovered, devices without a filesystem are refused: no image.
source "$top_srcdir/tests/functions.sh"
requires qemu-io python3

set_dir=$tmp/set
mkdir "$set_dir"
pids=()
stop_all () {
  local p
  for p in "${pids[@]}"; do
    alive "$p" && kill -TERM "$p" 2>/dev/null || true
  done
  return 0
}
cleanup_fn stop_all

for d in a b; do
  run powercut record --log "$set_dir/$d.pclog" --socket "$tmp/$d.sock" \
      --control "$tmp/$d.ctl" --pidfile "$tmp/$d.pid" --size 4M
  assert_eq "$rc" 0 "powercut record $d (stderr: $err)"
  pids+=("$(cat "$tmp/$d.pid")")
done

# Writes to both, flushes interleaved: what one device holds at the other's
# flush depends on the order on the common clock.
qio () {
  timeout "$T" qemu-io -f raw "nbd+unix:///?socket=$tmp/$1.sock" "${@:2}" >/dev/null ||
    fail "qemu-io on $1: $*"
}
for i in 0 1 2 3 4 5; do
  qio a -c "write -P $((0x10 + i)) $((i * 65536)) 65536"
  qio b -c "write -P $((0x40 + i)) $((i * 32768)) 4096" -c "write -P $((0x50 + i)) 1048576 8192"
  qio a -c flush
  qio b -c "write -P $((0x60 + i)) $((i * 4096)) 4096" -c flush
  qio a -c "write -P $((0x70 + i)) 2097152 4096"
done
for d in a b; do
  run powercut stop --control "$tmp/$d.ctl"
  assert_eq "$rc" 0 "powercut stop $d (stderr: $err)"
done
wait_until "$T" eval '! alive "${pids[0]}" && ! alive "${pids[1]}"'

# Every instant of either device, both images against the reference.
python3 - "$set_dir" "$tmp/out" "$POWERCUT" <<'PY' || fail "an instant's images differ from the reference"
import hashlib, os, struct, subprocess, sys
setdir, out, powercut = sys.argv[1:4]

def read_log(path):
    data = open(path, "rb").read()
    compat, = struct.unpack_from("<I", data, 16)
    devsize, = struct.unpack_from("<Q", data, 24)
    assert compat & 4, "the header gives no clock"
    mono, = struct.unpack_from("<Q", data, 200)
    recs, off = [], 256
    while off + 56 <= len(data):
        magic, typ, flags, seq, offset, length, datalen, time = \
            struct.unpack_from("<IHHQQIIQ", data, off)
        assert magic == 0x43524350
        recs.append((typ, offset, length, data[off + 56:off + 56 + datalen], mono + time))
        off += 56 + datalen
    return devsize, recs

def image(devsize, recs, n):
    im = bytearray(devsize)
    for typ, offset, length, payload, _ in recs[:n]:
        if typ == 1:
            im[offset:offset + length] = payload
        elif typ in (2, 3):
            im[offset:offset + length] = bytes(length)
    return hashlib.sha256(im).hexdigest()

logs = {d: read_log(os.path.join(setdir, d + ".pclog")) for d in ("a", "b")}
between = 0
for d in ("a", "b"):
    for c, rec in enumerate(logs[d][1]):
        t = rec[4]
        counts = {j: (c + 1 if j == d else sum(1 for r in logs[j][1] if r[4] <= t)) for j in logs}
        other = "b" if d == "a" else "a"
        between += 0 < counts[other] < len(logs[other][1])
        subprocess.run([powercut, "replay", setdir, "--at", "%s:%d" % (d, c), "-o", out],
                       check=True)
        for j in logs:
            got = hashlib.sha256(open(os.path.join(out, j + ".img"), "rb").read()).hexdigest()
            want = image(logs[j][0], logs[j][1], counts[j])
            assert got == want, "%s:%d: %s.img is not its %d records" % (d, c, j, counts[j])
# the instants cut the other device in the middle of its log, not only
# before or after it
assert between >= 10, between
print(between)
PY

# --recovered: the devices hold no filesystem, so the instant is refused,
# one line naming the device, and no image of either device is written.
run powercut replay "$set_dir" --at a:3 -o "$tmp/rec" --recovered
assert_eq "$rc" 2 "--recovered without filesystems: exit status"
assert_eq "$(wc -l <<<"$err")" 1 "--recovered without filesystems: lines of stderr: $err"
assert_match "$err" '^powercut replay: --at a:3: device a: blkid: no filesystem found' \
  "--recovered without filesystems: message"
assert_eq "$(ls -A "$tmp/rec" | wc -l)" 0 "files a refused --recovered left"

# One log of another boot, or without a clock, or no logs: refused, one line.
run powercut replay "$tmp" --at a:0 -o "$tmp/o2"
assert_eq "$rc" 2 "a directory without logs: exit status"
assert_match "$err" 'no NAME.pclog log in it' "a directory without logs: message"
run powercut replay "$set_dir" --at c:0 -o "$tmp/o2"
assert_eq "$rc" 2 "an unknown device: exit status"
assert_match "$err" 'no device c in the set' "an unknown device: message"
run powercut replay "$set_dir" --at a:99999 -o "$tmp/o2"
assert_eq "$rc" 2 "a point past the end: exit status"
assert_match "$err" 'beyond the last record' "a point past the end: message"
cp "$set_dir/b.pclog" "$tmp/b.copy"
"$top_builddir/tests/log-edit" "$set_dir/b.pclog" header 208 ff || fail "log-edit"
run powercut replay "$set_dir" --at a:0 -o "$tmp/o2"
assert_eq "$rc" 2 "logs of two boots: exit status"
assert_match "$err" 'recorded in different boots' "logs of two boots: message"
cp "$tmp/b.copy" "$set_dir/b.pclog"
"$top_builddir/tests/log-edit" "$set_dir/b.pclog" header 16 03000000 || fail "log-edit"
run powercut replay "$set_dir" --at a:0 -o "$tmp/o2"
assert_eq "$rc" 2 "a log without its clock: exit status"
assert_match "$err" 'does not give its clock' "a log without its clock: message"
