#!/usr/bin/env bash
# test-run-vm.sh: the kernel's own NBD client: run --attach vm boots a qemu
# guest whose /dev/nbd0 is the recorder; the log holds the guest kernel's
# FUA writes, flushes, trims and write-zeroes from two connections, every
# crash point of default-option ext4 is ok, and noauto_da_alloc shows the
# zero-length files as through nbdfuse; the writeback knobs of a
# configuration are set in the guest.
# all its work is in qemu guests: it takes no lock, and runs beside others
test_parallel=yes
source "$top_srcdir/tests/functions.sh"
requires qemu-system-x86_64 python3
ls /boot/vmlinuz-* >/dev/null 2>&1 || { echo "$0: test skipped: no kernel in /boot"; exit 77; }
[ -x /usr/sbin/nbd-client ] || [ -x /sbin/nbd-client ] || { echo "$0: test skipped: no nbd-client"; exit 77; }
[ -x /bin/busybox ] || [ -x /usr/bin/busybox ] || { echo "$0: test skipped: no busybox"; exit 77; }
T=$(( T * 5 ))     # a guest under TCG is slow

verdict () { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["totals"][sys.argv[2]])' "$1" "$2"; }

# A command of one's own, traced in the guest (as run traces a command):
# files written and synced, then each replaced with fsync.
# (nodioread_nolock: with ext4's default dioread_nolock a crash can find a
# renamed file reading as zeros, test-run-zero-filled.sh's finding)
cat >"$tmp/save.sh" <<'SH'
#!/bin/sh
set -e
cd "$POWERCUT_MNT"
for i in 0 1 2 3 4 5 6 7 8 9; do echo "file $i version 1" >f$i; done
sync
powercut mark v1 --manifest "$POWERCUT_MNT" --sync
for i in 0 1 2 3 4 5 6 7 8 9; do
  echo "file $i version 2" >f$i.tmp; sync f$i.tmp; mv f$i.tmp f$i; sync .
  powercut mark v2-$i --manifest "$POWERCUT_MNT" --durable f$i
done
SH
chmod +x "$tmp/save.sh"
run powercut run --settle 0 --quiet --attach vm --connections 2 --mount-opts nodioread_nolock \
    --out "$tmp/ok" -- "$tmp/save.sh"
# without dioread_nolock in the guest: every crash point ok (exit 0)
assert_eq "$rc" 0 "vm run, default options ($out $err; console: $(tail -5 "$tmp/ok/console.txt" 2>/dev/null))"
read_log "$tmp/ok/powercut.log"
# the guest kernel's NBD client sends FUA writes (nbdfuse + loop never does)
assert_match "$summary" 'write +[0-9]+ \([1-9][0-9]* with fua\)' "FUA writes"
# ... flushes, trims and write-zeroes
assert_ge "$(count flush)" 2 "flushes"
assert_ge "$(count trim)" 1 "trims"
assert_ge "$(count write-zeroes)" 1 "write-zeroes"
# ... over two connections
assert_eq "$(field connections)" 2 "connections that sent requests"
# the flush model's FUA points are checked too
assert_ge "$(verdict "$tmp/ok/report.json" points)" 10 "crash points"
# the command was traced in the guest: its calls are in the log, named
# from the filesystem's root
dump_log "$tmp/ok/powercut.log"
assert_match "$dump" ' event exit .* rename(at2?)?\(.* = 0 path=/f9\.tmp path2=/f9$' "the guest's rename events"
assert_match "$dump" ' event entry .* fsync\(.* path=/f9\.tmp$' "the guest's fsync events"

run powercut run --quiet --attach vm --workload replace-rename --files 10 \
    --mount-opts noauto_da_alloc --out "$tmp/noauto"
# noauto_da_alloc in the guest: zero-length files, exit 1
assert_eq "$rc" 1 "vm run, noauto_da_alloc ($err; console: $(tail -5 "$tmp/noauto/console.txt" 2>/dev/null))"
assert_ge "$(verdict "$tmp/noauto/report.json" zero-length)" 1 "zero-length points"

# Writeback knobs of a configuration are set in the guest, not here: the
# steady workload in the guest sees them, and this machine's stay as they
# were; its durability windows come back like any report's.
host=$(cat /proc/sys/vm/dirty_expire_centisecs)
run powercut run --quiet --attach vm --workload steady --seconds 2 \
    --config "ext4 vm.dirty_expire_centisecs=100 vm.dirty_writeback_centisecs=100" --out "$tmp/knobs"
[ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "vm run with knobs: exit status $rc ($err; console: $(tail -5 "$tmp/knobs/console.txt" 2>/dev/null))"
assert_match "$(cat "$tmp/knobs/console.txt")" 'dirty_expire 100 cs, dirty_writeback 100 cs' "knobs in the guest"
assert_eq "$(cat /proc/sys/vm/dirty_expire_centisecs)" "$host" "this machine's dirty_expire_centisecs"
# 2 seconds of five ways and 2 of the fsync'd one
assert_eq "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["windows"]["versions"])' "$tmp/knobs/report.json")" 12 "versions followed"
