#!/usr/bin/env bash
# test-run-devices.sh: powercut run --device: two devices, one power cut.
# run sets both up (a recorder, nbdfuse, a loop device, mkfs, a mount
# each), gives the command POWERCUT_MNT_<NAME> and POWERCUT_CONTROL_<NAME>,
# tears both down, and checks every instant of the set with --verify
# across the devices: a cross-device invariant holds everywhere, a file
# marked but never synced is reported lost, and a device that cannot be
# set up fails the run with its name, leaving nothing behind.
source "$top_srcdir/tests/functions.sh"
requires_root
requires nbdfuse losetup mkfs.ext4 fusermount3 python3
T=300

# a's file fsynced first, then b's, a mark in each log after each;
# with SYNC_B=no b's files are marked as if synced, but are not
cat >"$tmp/two.sh" <<'SH'
#!/bin/sh
set -e
env | grep '^POWERCUT' | sort >"$POWERCUT_MNT_a/env.txt"; sync "$POWERCUT_MNT_a/env.txt"
for i in 1 2 3; do
  echo "a $i" >"$POWERCUT_MNT_a/f$i"; sync "$POWERCUT_MNT_a/f$i"
  "$POWERCUT" mark --control "$POWERCUT_CONTROL_a" "a-$i"
  echo "b $i" >"$POWERCUT_MNT_b/g$i"
  [ "${SYNC_B:-yes}" = no ] || sync "$POWERCUT_MNT_b/g$i"
  "$POWERCUT" mark --control "$POWERCUT_CONTROL_b" "b-$i"
done
SH
# every g_i b's marks name is whole; a g_i exists only beside a whole f_i
cat >"$tmp/verify.sh" <<'SH'
#!/bin/sh
for m in $POWERCUT_MARKS_b; do
  case $m in b-*) i=${m#b-} ;; *) continue ;; esac
  [ "$(cat "$POWERCUT_ROOT_b/g$i" 2>/dev/null)" = "b $i" ] || { echo "lost: g$i"; exit 1; }
done
for g in "$POWERCUT_ROOT_b"/g*; do
  [ -e "$g" ] || continue
  i=${g##*/g}
  [ "$(cat "$POWERCUT_ROOT_a/f$i" 2>/dev/null)" = "a $i" ] || { echo "corrupt: g$i without f$i"; exit 2; }
done
echo consistent
SH
chmod +x "$tmp/two.sh" "$tmp/verify.sh"
mounts () { grep -c "$tmp" /proc/self/mounts || true; }
loops () { losetup -a | grep -c "$tmp" || true; }
export TMPDIR=$tmp/t; mkdir "$TMPDIR"   # run's private directories: here

run powercut run --settle 0 -q --device a:64M --device b:32M --verify "$tmp/verify.sh" --out "$tmp/ok" \
    -- "$tmp/two.sh"
assert_eq "$rc" 0 "two devices, every instant ok ($out; $err)"
assert_match "$out" "device set $tmp/ok/set, 2 devices: a b" "the set's report is printed"
assert_eq "$(ls "$tmp/ok/set")" "$(printf 'a.pclog\nb.pclog')" "one log per device, one set"
for n in a b; do
  read_log "$tmp/ok/set/$n.pclog"
  assert_match "$summary" ": mkfs \(" "$n: the mark mkfs"
  assert_match "$summary" ": end \(" "$n: the mark end"
done
python3 - "$tmp/ok/report.json" <<'PY' || fail "the instants"
import json, sys
r = json.load(open(sys.argv[1]))
x = r["instants"]
assert len(x) >= 12, len(x)
assert all(i["verdict"] == "ok" for i in x), x[:2]
# the checker ran wherever both devices held their filesystem
both = [i for i in x if all(d is not None for d in i["devices"].values())]
assert len(both) >= 10 and all(i.get("app") == "ok" for i in both), both[:2]
PY
# the command saw every device's mount point and control socket
powercut replay "$tmp/ok/set" --at a:end -o "$tmp/st" >/dev/null || fail "replay a:end"
env_txt=$(debugfs -R "cat /env.txt" "$tmp/st/a.img" 2>/dev/null)
for v in POWERCUT_MNT_a POWERCUT_MNT_b POWERCUT_CONTROL_a POWERCUT_CONTROL_b POWERCUT_MNT POWERCUT; do
  grep -q "^$v=/" <<<"$env_txt" || fail "$v not in the command's environment: $env_txt"
done
assert_eq "$(mounts) $(loops) $(ls "$TMPDIR")" "0 0 " "nothing left mounted, attached or made"

# b's files marked but never synced: lost at some instant, a broken promise
export SYNC_B=no
run powercut run --settle 0 -q --device a:64M --device b:32M --verify "$tmp/verify.sh" \
    --out "$tmp/lost" -- "$tmp/two.sh"
unset SYNC_B
assert_eq "$rc" 1 "unsynced files on b are lost somewhere ($out; $err)"
python3 - "$tmp/lost/report.json" <<'PY' || fail "the lost instants"
import json, sys
r = json.load(open(sys.argv[1]))
bad = [i for i in r["instants"] if i.get("app") == "app-invalid"]
assert bad and all("lost: g" in i["evidence"] for i in bad), bad[:2]
PY

# b cannot be made: the run fails naming it, and everything is undone
run powercut run --settle 0 -q --device a:64M --device b:32M:ext4:'-O bogus' --out "$tmp/bad" -- "$tmp/two.sh"
assert_eq "$rc" 2 "a device that cannot be made"
assert_match "$err" "b: mkfs.ext4" "the device named"
assert_eq "$(mounts) $(loops) $(ls "$TMPDIR")" "0 0 " "nothing left after the failure"

# what --device does not go with
for bad in "--size 64M" "--attach vm" "--trace" "-w rename-over"; do
  run powercut run --settle 0 --device a:64M $bad --out "$tmp/x" -- true
  [ "$bad" = "-w rename-over" ] && run powercut run --device a:64M $bad --out "$tmp/x"
  assert_eq "$rc" 2 "--device with $bad"
  assert_match "$err" "--device" "--device with $bad: says why"
done
run powercut run --settle 0 --device 'a b:64M' --out "$tmp/x" -- true
assert_eq "$rc" 2 "a bad device name"
run powercut run --settle 0 --device a:64M --device a:32M --out "$tmp/x" -- true
assert_match "$err" "named twice" "a device named twice"
