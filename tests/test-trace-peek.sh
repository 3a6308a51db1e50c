#!/usr/bin/env bash
# test-trace-peek.sh: the tracer reads a traced program's memory (paths,
# the bytes it writes) by process_vm_readv, or, on a kernel built without
# it (a small guest kernel: ENOSYS), by the thread's /proc/TID/mem.  The
# same workload traced both ways (POWERCUT_TRACE_PEEK=proc forces the
# second) logs the same calls with the same paths and the same bytes, and
# is judged on as many of them.  (Before, a kernel without
# process_vm_readv lost every open's path and the oracle read an fdatasync
# as promising nothing.)
source "$top_srcdir/tests/functions.sh"
requires_root
requires nbdfuse losetup mkfs.ext4 fusermount3 e2fsck xfs_io

cat >"$tmp/w.sh" <<'SH'
#!/bin/sh
set -e
cd "$POWERCUT_MNT"
mkdir -p dir
echo "first line" >dir/a
xfs_io -f -c "pwrite -S 0x5a 0 8192" -c fsync "dir/b c" >/dev/null
mv dir/a dir/renamed
printf 'second\n' >>dir/renamed
xfs_io -c "pwrite -S 0x22 8192 1024" -c fdatasync "dir/b c" >/dev/null
sync
SH
chmod +x "$tmp/w.sh"
calls () {
  powercut log --dump "$1" | sed -n 's/^[0-9]* [0-9.]* [0-9]* event exit pid=[0-9]* tid=[0-9]* //p' |
    sed 's/0x[0-9a-f]*/PTR/g'
}
for way in vm proc; do
  if [ $way = proc ]; then export POWERCUT_TRACE_PEEK=proc; fi
  run powercut run --quiet --settle 0 -O "$tmp/$way" -- "$tmp/w.sh"
  assert_match "$rc" "^[01]$" "traced, memory read by $way ($err)"
  unset POWERCUT_TRACE_PEEK
  calls "$tmp/$way/powercut.log" >"$tmp/$way.calls"
done
assert_match "$(cat "$tmp/proc.calls")" '^openat\(AT_FDCWD, "dir/b c", O_RDWR\|O_CREAT, 0600\) = 3' "an open's path read"
assert_match "$(cat "$tmp/proc.calls")" '^rename(at2?)?\(.*"dir/a".*"dir/renamed"' "a rename's paths read"
assert_match "$(cat "$tmp/proc.calls")" '^write\(1</dir/renamed>, "second\\n", 7\) = 7' "the bytes written read"
assert_eq "$(diff "$tmp/vm.calls" "$tmp/proc.calls")" "" "the same calls both ways"
judged () { sed -n 's/.*judged by a traced program.s \([0-9]*\) calls.*/\1/p' "$1/report.txt"; }
assert_ge "$(judged "$tmp/proc")" 10 "calls judged"
assert_eq "$(judged "$tmp/proc")" "$(judged "$tmp/vm")" "as many calls judged both ways"
