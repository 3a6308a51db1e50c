#!/usr/bin/env bash
# test-vm.sh: powercut vm, a script in a qemu guest.  Its arguments reach
# it as given (blanks and quotes), what it prints comes back, its exit
# status is vm's; --copy keeps a tree's modes; what it writes to
# $POWERCUT_OUT reaches --output exactly; a guest stopped by its
# timeout exits 125 naming its console, which is kept, and what the script
# printed until then still comes back; a kernel that stops before the
# guest's init ran is booted once more (a qemu in PATH that, for a boot's
# first try, prints a panic and exits), and one that stops so every time
# exits 125 quoting the panic; a wrong command line exits 2.
# all its work is in qemu guests: it takes no lock, and runs beside others
test_parallel=yes
source "$top_srcdir/tests/functions.sh"
requires qemu-system-x86_64
ls /boot/vmlinuz-* >/dev/null 2>&1 || { echo "$0: test skipped: no kernel in /boot"; exit 77; }
[ -x /usr/sbin/nbd-client ] || [ -x /sbin/nbd-client ] || { echo "$0: test skipped: no nbd-client"; exit 77; }
[ -x /bin/busybox ] || [ -x /usr/bin/busybox ] || { echo "$0: test skipped: no busybox"; exit 77; }
T=600

mkdir -p "$tmp/tree/private" "$tmp/tree/open"
chmod 700 "$tmp/tree/private"
chmod 1777 "$tmp/tree/open"
echo "data" >"$tmp/tree/private/file"
cat >"$tmp/s.sh" <<'SH'
#!/bin/sh
for a in "$@"; do echo "arg: [$a]"; done
echo "modes: $(stat -c %a tree/private) $(stat -c %a tree/open) $(cat tree/private/file)"
printf 'line\r\n\000\377' >"$POWERCUT_OUT"; head -c 100000 /dev/zero | tr '\0' x >"$POWERCUT_OUT"
exit 3
SH
XDG_CACHE_HOME="$tmp/cache" run powercut vm --copy "$tmp/tree" --output "$tmp/out.bin" "$tmp/s.sh" \
    "two words" "it's" '$HOME' ""
assert_eq "$rc" 3 "the script's exit status ($err)"
# what it wrote to $POWERCUT_OUT, byte for byte, apart from its console
assert_eq "$(od -An -c -N 8 "$tmp/out.bin" | tr -s ' ')" ' l i n e \r \n \0 377' "--output: raw bytes"
assert_eq "$(stat -c %s "$tmp/out.bin")" 100008 "--output: all of them"
# The initramfs base kept in a private folder: mode 0700, its files 0600.
assert_eq "$(stat -c '%a %U' "$tmp/cache/powercut")" "700 $(id -un)" "the cache folder"
assert_eq "$(stat -c '%a %U' "$tmp/cache/powercut"/* | sort -u)" "600 $(id -un)" "its files"
assert_eq "$(ls "$tmp/cache/powercut" | grep -c '^initramfs-.*\.cpio\(\.modules\)\?$')" 2 \
  "a base and its modules, no temporary file left"
assert_eq "$out" "$(printf '%s\n' 'arg: [two words]' "arg: [it's]" 'arg: [$HOME]' 'arg: []' \
  'modes: 700 1777 data')" "arguments, output and copied modes"

cat >"$tmp/slow.sh" <<'SH'
#!/bin/sh
echo "before the wait"
sleep 600
SH
# (the time counts from qemu's start: under TCG, beside other guests, the
# boot alone may take half a minute)
run powercut vm --timeout 75 "$tmp/slow.sh"
assert_eq "$rc" 125 "a guest past its timeout"
assert_match "$err" "did not finish within 75 s \(its console: (.*)\)" "says why, names the console"
console=$(sed -n 's/.*its console: \([^)]*\)).*/\1/p' <<<"$err")
[ -s "$console" ] || fail "the console $console was not kept"
rm -rf "$(dirname "$console")"
assert_match "$out" "^before the wait$" "what the script printed before"

# A boot whose kernel panics before the guest's init: booted once more.
real=$(command -v qemu-system-x86_64)
mkdir "$tmp/bin"
cat >"$tmp/bin/qemu-system-x86_64" <<SH
#!/bin/sh
case "\$*" in *loglevel=3*) ;; *) exec "$real" "\$@" ;; esac   # the KVM probe
[ -e "$tmp/panics" ] && [ "\$(cat "$tmp/panics")" -gt 0 ] || exec "$real" "\$@"
echo \$((\$(cat "$tmp/panics") - 1)) >"$tmp/panics"
echo "[    1.286029] Kernel panic - not syncing: injected by the test"
echo "[    1.286100] Kernel Offset: 0x34c00000 from 0xffffffff81000000"
SH
chmod +x "$tmp/bin/qemu-system-x86_64"
printf '#!/bin/sh\necho up\n' >"$tmp/up.sh"
echo 1 >"$tmp/panics"
PATH="$tmp/bin:$PATH" run powercut vm --console "$tmp/c1.txt" "$tmp/up.sh"
assert_eq "$rc" 0 "booted again after a panic before init ($err)"
assert_eq "$out" "up" "the script ran once"
assert_eq "$(cat "$tmp/panics")" 0 "the panicking boot was tried"
grep -q '^\[powercut: an earlier boot stopped before its init ran' "$tmp/c1.txt" ||
  fail "the first boot's console is not kept"
grep -q 'injected by the test' "$tmp/c1.txt" || fail "the first boot's panic is not in the console"
echo 2 >"$tmp/panics"
PATH="$tmp/bin:$PATH" run powercut vm --console "$tmp/c2.txt" "$tmp/up.sh"
assert_eq "$rc" 125 "a kernel that panics at every boot"
assert_match "$err" "the guest did not finish: 'Kernel panic - not syncing: injected by the test' \(its console: $tmp/c2.txt\)" \
  "quotes the panic, not the console's last line"
assert_eq "$(cat "$tmp/panics")" 0 "booted twice, no more"

run powercut vm --disk 'bad name:/nonexistent' "$tmp/s.sh"
assert_eq "$rc" 2 "a bad --disk"
run powercut vm
assert_eq "$rc" 2 "no script"
run powercut vm /nonexistent/script.sh
assert_eq "$rc" 2 "a script that is not there"
