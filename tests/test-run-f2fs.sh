#!/usr/bin/env bash
# test-run-f2fs.sh: f2fs, which this machine's kernel does not have and a
# guest's does: run --fs f2fs --attach vm records in a qemu guest (its
# initramfs carrying the f2fs module with the crc32 it asks for,
# mkfs.f2fs and fsck.f2fs) and, by default, judges every state in a
# guest (--judge guest); check of its log does the same by itself, and
# with its data zeroed in the log finds the files it lost; --attach
# fuse says in one line that this kernel has no f2fs, before recording
# anything.
source "$top_srcdir/tests/functions.sh"
requires qemu-system-x86_64 python3 mkfs.f2fs fsck.f2fs
ls /boot/vmlinuz-* >/dev/null 2>&1 || { echo "$0: test skipped: no kernel in /boot"; exit 77; }
[ -x /usr/sbin/nbd-client ] || [ -x /sbin/nbd-client ] || { echo "$0: test skipped: no nbd-client"; exit 77; }
[ -x /bin/busybox ] || [ -x /usr/bin/busybox ] || { echo "$0: test skipped: no busybox"; exit 77; }
grep -qw f2fs /proc/filesystems && { echo "$0: test skipped: this kernel has f2fs"; exit 77; }
T=$(( T * 5 ))     # a guest under TCG is slow
export TMPDIR=$tmp
json () { python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }

run powercut run --quiet --fs f2fs --attach vm --workload replace-rename-fsync --files 2 --out "$tmp/r"
[ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "run --fs f2fs: exit status $rc ($err; console: $(tail -5 "$tmp/r/console.txt" 2>/dev/null))"
r=$tmp/r/report.json
assert_eq "$(json "$r" 'r["fs"]')" f2fs "the report names it"
assert_eq "$(json "$r" 'r["totals"]["points"] > 3 and r["totals"]["not-checked"] == 0')" True "every crash point judged"
assert_eq "$(json "$r" '{p["judge"] for p in r["points"]} == {"guest"} and r["kernel_in_guest"]')" True \
  "judged by the guest's kernel, by default"
assert_match "$(cat "$tmp/r/report.txt")" "judged by the guest's kernel .*then fsck.f2fs -f --dry-run" \
  "and checked by fsck.f2fs"

# Its first versions zeroed in the log (the filesystem's loss, made by
# hand): lost data found, check going to a guest by itself
cp "$tmp/r/powercut.log" "$tmp/zeroed.log"
run "$top_builddir/tests/log-edit" "$tmp/zeroed.log" zero-data "version 1 "
assert_eq "$rc" 0 "the first versions in the log ($err)"
run powercut check "$tmp/zeroed.log" --json "$tmp/zeroed.json"
assert_eq "$rc" 1 "zeroed: data lost ($err)"
assert_match "$err" "cannot mount .*judging it in a guest" "check says why it judges in a guest"
assert_ge "$(json "$tmp/zeroed.json" 'r["totals"]["mismatch"]')" 1 "zeroed: points where a file holds what it never had"

# recorded here: refused in one line, nothing recorded
run powercut run --quiet --fs f2fs --attach fuse --workload replace-rename --files 2 --out "$tmp/here"
assert_eq "$rc" 2 "--attach fuse"
assert_match "$err" "this machine's kernel has no f2fs \(/proc/filesystems\): record it in a qemu guest \(--attach vm\)" \
  "says why and what to do"
[ ! -e "$tmp/here/powercut.log" ] || fail "a log was recorded"
assert_eq "$(pgrep -f -- "$tmp/" || true)" "" "no guest left running"
