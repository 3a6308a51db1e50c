#!/usr/bin/env bash
# test-run-vm.sh: the kernel's own NBD client: run --attach vm boots a qemu
# guest whose /dev/nbd0 is the recorder; the log holds the guest kernel's
# FUA writes, flushes, trims and write-zeroes from two connections, every
# crash point of default-option ext4 is ok, and noauto_da_alloc shows the
# zero-length files as through nbdfuse.
source "$top_srcdir/tests/functions.sh"
requires qemu-system-x86_64 python3
ls /boot/vmlinuz-* >/dev/null 2>&1 || { echo "$0: test skipped: no kernel in /boot"; exit 77; }
[ -x /usr/sbin/nbd-client ] || [ -x /sbin/nbd-client ] || { echo "$0: test skipped: no nbd-client"; exit 77; }
[ -x /bin/busybox ] || [ -x /usr/bin/busybox ] || { echo "$0: test skipped: no busybox"; exit 77; }
T=$(( T * 5 ))     # a guest under TCG is slow

verdict () { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["totals"][sys.argv[2]])' "$1" "$2"; }

run powercut run --quiet --attach vm --connections 2 --workload replace-rename --files 10 --out "$tmp/ok"
# default options in the guest: every crash point ok (exit 0)
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

run powercut run --quiet --attach vm --workload replace-rename --files 10 \
    --mount-opts noauto_da_alloc --out "$tmp/noauto"
# noauto_da_alloc in the guest: zero-length files, exit 1
assert_eq "$rc" 1 "vm run, noauto_da_alloc ($err; console: $(tail -5 "$tmp/noauto/console.txt" 2>/dev/null))"
assert_ge "$(verdict "$tmp/noauto/report.json" zero-length)" 1 "zero-length points"
