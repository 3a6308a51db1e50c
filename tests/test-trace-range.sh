#!/usr/bin/env bash
# test-trace-range.sh: a synchronous write or an msync of a range promises
# that range (and a size that reaches it), not the whole file.  On ext4, a
# traced program writes a file's second half buffered and never syncs it,
# then writes its first 8 KiB with O_DIRECT|O_SYNC (or through a shared
# mapping, then msync(MS_SYNC) of those 8 KiB): no crash state breaks a
# promise, whatever else it lost.  With the synced range's data zeroed in
# the log, the states after the call break one, and the finding names the
# write (or the msync) that made it durable.
source "$top_srcdir/tests/functions.sh"
requires_root
requires python3 e2fsck
T=$(( T * 3 ))
json () { python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }

cat >"$tmp/range.py" <<'PY'
import mmap, os, sys, time
if sys.argv[1] == "direct":
    fd = os.open("f", os.O_CREAT | os.O_RDWR, 0o644)
    os.pwrite(fd, b"B" * 16384, 16384)          # buffered past a hole, never synced
    os.close(fd)
    buf = mmap.mmap(-1, 8192)                   # aligned, for O_DIRECT
    buf.write(b"DIRECT-SYNC-RNG." * 512)
    fd = os.open("f", os.O_RDWR | os.O_DIRECT | os.O_SYNC)
    assert os.pwrite(fd, buf, 0) == 8192
    os.close(fd)
else:
    fd = os.open("f", os.O_CREAT | os.O_RDWR, 0o644)
    os.pwrite(fd, b"B" * 16384, 16384)
    m = mmap.mmap(fd, 32768)
    m[0:8192] = b"MSYNC-RANGE-DAT." * 512
    m.flush(0, 8192)                            # msync(MS_SYNC) of the first 8 KiB
    m.close()
    os.close(fd)
time.sleep(1)
PY

for how in direct msync; do
  run powercut run --settle 0 -q --fail-on promises -O "$tmp/$how" -- python3 "$tmp/range.py" "$how"
  assert_eq "$rc" 0 "$how: no broken promise ($out $err)"
  assert_eq "$(json "$tmp/$how/report.json" 'r["totals"]["promises"]')" 0 "$how: promises"
  pattern=$([ "$how" = direct ] && echo DIRECT-SYNC-RNG. || echo MSYNC-RANGE-DAT.)
  call=$([ "$how" = direct ] && echo pwrite64 || echo msync)
  cp "$tmp/$how/powercut.log" "$tmp/$how-zeroed.log"
  n=$("$top_builddir/tests/log-edit" "$tmp/$how-zeroed.log" zero-data "$pattern") ||
    fail "$how: the synced data is not in the log"
  assert_eq "$n" 512 "$how: the synced range found once in the log"
  run powercut check "$tmp/$how-zeroed.log" --json "$tmp/$how-zeroed.json"
  assert_eq "$rc" 1 "$how, zeroed: problems found ($err)"
  assert_eq "$(json "$tmp/$how-zeroed.json" 'r["totals"]["promises"] > 0')" True "$how, zeroed: a broken promise"
  assert_eq "$(json "$tmp/$how-zeroed.json" 'all((f["cause"].get("durable_by") or "").startswith("'"$call"'(") for p in r["points"] for f in p["findings"] if f.get("promise"))')" True \
    "$how, zeroed: the promise is the $call's"
done
