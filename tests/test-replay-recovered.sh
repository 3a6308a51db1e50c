#!/usr/bin/env bash
# test-replay-recovered.sh: powercut replay --recovered writes a crash
# state as a reboot leaves it.  A hand recording on a real ext4: files
# written and synced, a file unlinked while still open across a sync (an
# orphan in the journal), more written, a final synced mark.  At a crash
# point after that mark whose raw state needs journal recovery, the
# --recovered image passes e2fsck -fn, mounts read-only and holds the
# files the mark had; the raw image differs and is the default.  Where
# the journal holds the orphan, the image is what the kernel's own mount
# leaves (orphan released).  The reports' rebuild lines give --recovered:
# on a recorded seed, the text report's first, run as printed, mounts and
# holds the empty files the report found.  Refused, with one line, exit 2
# and no image: a state with no filesystem.  A fast_commit journal needing
# replay, which only the kernel replays as a mount would: recovered by the
# kernel (the image passes e2fsck -fn and mounts read-only with the files
# it fsync'd); on e2fsck's replay alone it is not judged, and the report's
# rebuild line is the raw state's.
source "$top_srcdir/tests/functions.sh"
requires_root
requires e2fsck dumpe2fs debugfs losetup python3 cmp

export TMPDIR=$tmp/scratch
mkdir "$TMPDIR" "$tmp/want" "$tmp/ro"
json () { python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
# needs_recovery IMAGE: does its superblock say its journal needs recovery?
needs_recovery () { dumpe2fs -h "$1" 2>/dev/null | grep -q '^Filesystem features:.*needs_recovery'; }
# the record number of mark NAME in $log
mark_record () { powercut log --dump "$log" | awk -v m="name=$1" '$4 == "mark" && $5 == m { print $1 }'; }

# --- The recording --------------------------------------------------------
log=$tmp/rec.log
mount_ext4 64M
close_gone () { exec 3>&-; }
cleanup_fn close_gone
head -c 30000 /dev/urandom >"$mnt/a"
head -c 9000 /dev/urandom >"$mnt/b"
run powercut mark --control "$ctl" written --manifest "$mnt" --sync
assert_eq "$rc" 0 "mark written: exit status (stderr: $err)"
exec 3>"$mnt/gone"
head -c 50000 /dev/urandom >&3
rm "$mnt/gone"
sync -f "$mnt"                  # the orphan committed
head -c 7000 /dev/urandom >"$mnt/c"
sync -f "$mnt"
close_gone                      # released: it is no orphan from here on
sync -f "$mnt"
cp "$mnt/a" "$mnt/b" "$mnt/c" "$tmp/want/"
run powercut mark --control "$ctl" final --manifest "$mnt" --sync
assert_eq "$rc" 0 "mark final: exit status (stderr: $err)"
unmount_ext4
stop_recorder

run powercut check "$log" --json "$tmp/rec.json"
assert_match "$rc" '^[01]$' "check: exit status (stderr: $err)"
final=$(mark_record final)
assert_match "$final" '^[0-9]+$' "the final mark's record"

# --- A state after the final mark that needs recovery ---------------------
# the first point after it that the check found ok and whose raw image
# needs its journal recovered
at=
for id in $(json "$tmp/rec.json" '" ".join(p["id"] for p in r["points"] if p["record"] > '"$final"' and p["verdict"] == "ok")'); do
  run powercut replay "$log" --at "$id" -o "$tmp/raw.img"
  assert_eq "$rc" 0 "replay --at $id: exit status (stderr: $err)"
  if needs_recovery "$tmp/raw.img"; then at=$id; break; fi
done
# such a point exists: the filesystem is still mounted after the mark
assert_match "$at" '^[0-9]+$' "a point after the final mark that needs recovery"

run powercut replay "$log" --at "$at" -o "$tmp/rec.img" --recovered
# --recovered writes the image, saying nothing
assert_eq "$rc.$err" "0." "replay --recovered --at $at: exit status and stderr"
run e2fsck -fn "$tmp/rec.img"
# e2fsck -fn passes the recovered state
assert_eq "$rc" 0 "e2fsck -fn of the recovered state at $at: $out $err"
# its journal needs no recovery any more
needs_recovery "$tmp/rec.img" && fail "the recovered image at $at still needs recovery"
run cmp -s "$tmp/raw.img" "$tmp/rec.img"
# the raw state (the default) is not the recovered one
assert_eq "$rc" 1 "raw and recovered images at $at"
run powercut replay "$log" --at "$at" -o "$tmp/rec2.img" --recovered
run cmp "$tmp/rec.img" "$tmp/rec2.img"
# the same command writes the same bytes again
assert_eq "$rc" 0 "two --recovered images of $at: $out"

# mounted read-only on a loop device of its own
ro_loop=
detach_ro () { [ -z "$ro_loop" ] || losetup -d "$ro_loop"; ro_loop=; }
umount_ro () { ! mountpoint -q "$tmp/ro" || timeout "$T" umount "$tmp/ro"; }
cleanup_fn detach_ro
cleanup_fn umount_ro
ro_loop=$(timeout "$T" losetup -f --show -r "$tmp/rec.img")
assert_match "$ro_loop" '^/dev/loop[0-9]+$' "losetup -r of the recovered image"
run mount -o ro "$ro_loop" "$tmp/ro"
# the recovered state mounts read-only
assert_eq "$rc" 0 "mount -o ro of the recovered state: $err"
# it holds the files of the final mark, whole, and not the unlinked one
assert_eq "$(cd "$tmp/ro" && echo *)" "a b c lost+found" "the files of the recovered state"
for f in a b c; do
  run cmp "$tmp/want/$f" "$tmp/ro/$f"
  assert_eq "$rc" 0 "$f in the recovered state: $out"
done
umount_ro
detach_ro

# --- Orphans released, as the kernel's mount releases them ----------------
orphan=$(json "$tmp/rec.json" '" ".join(p["id"] for p in r["points"] if any("orphan" in e for e in p["evidence"]))' | awk '{ print $1 }')
# the journal of some state holds the open, unlinked file as an orphan
assert_match "$orphan" '^[0-9]+' "a state with an orphan to release"
run powercut replay "$log" --at "$orphan" -o "$tmp/orphan.img" --recovered
assert_eq "$rc.$err" "0." "replay --recovered --at $orphan: exit status and stderr"
run e2fsck -fn "$tmp/orphan.img"
# e2fsck -fn passes it: no orphan list left
assert_eq "$rc" 0 "e2fsck -fn of the recovered state at $orphan: $out $err"
assert_no_match "$(dumpe2fs -h "$tmp/orphan.img" 2>/dev/null)" 'First orphan inode' "orphan list"
# the kernel's own recovery: a copy of the raw state mounted read-write
run powercut replay "$log" --at "$orphan" -o "$tmp/kernel.img"
assert_eq "$rc" 0 "replay --at $orphan (stderr: $err)"
kernel_loop=
detach_kernel () { [ -z "$kernel_loop" ] || losetup -d "$kernel_loop"; kernel_loop=; }
cleanup_fn detach_kernel
kernel_loop=$(timeout "$T" losetup -f --show "$tmp/kernel.img")
assert_match "$kernel_loop" '^/dev/loop[0-9]+$' "losetup of the raw state"
run mount "$kernel_loop" "$tmp/ro"
assert_eq "$rc" 0 "mount of the raw state at $orphan: $err"
umount_ro
detach_kernel
groups () { dumpe2fs "$1" 2>/dev/null | grep -E '^ +[0-9]+ free blocks'; }
# the same free blocks and inodes in every group as the kernel's mount
# leaves, the orphan's among them
assert_eq "$(groups "$tmp/orphan.img")" "$(groups "$tmp/kernel.img")" "free counts after recovery"
assert_eq "$(debugfs -R 'ls -l /' "$tmp/orphan.img" 2>/dev/null)" \
          "$(debugfs -R 'ls -l /' "$tmp/kernel.img" 2>/dev/null)" "the root directory after recovery"

# --- The reports' rebuild lines ----------------------------------------------
# the JSON report's command for that point is the --recovered one
assert_match "$(json "$tmp/rec.json" '[p["replay"] for p in r["points"] if p["id"] == "'"$at"'"][0]')" \
  " --at $at -o state\.img --recovered\$" "the JSON report's replay command of $at"
# A recorded seed (tests/golden/rename-noauto): its failing points are
# files found empty.  The text report's rebuild lines say --recovered; the
# first, run as printed, writes a state that e2fsck -fn passes and that
# mounts read-only, with the files the report says it found.
golden=$top_srcdir/tests/golden/rename-noauto/recording.pclog
run powercut check "$golden"
assert_eq "$rc" 1 "check of the golden recording (stderr: $err)"
text=$out
lines=$(grep -E '^ +rebuild: ' <<<"$text")
assert_match "$lines" 'rebuild: powercut replay .* --at [0-9]+ -o state\.img --recovered$' "the text report's rebuild lines"
assert_no_match "$lines" '-o state\.img$' "a rebuild line without --recovered"
first=$(sed -n 's/^first failing crash point: \([0-9]*\) .*/\1/p' <<<"$text")
cmd=$(grep -m1 -E "^ +rebuild: powercut replay .* --at $first " <<<"$text" | sed 's/^ *rebuild: //')
mkdir "$tmp/printed"
run bash -c "cd '$tmp/printed' && powercut () { timeout '$T' $POWERCUT_WRAPPER '$POWERCUT' \"\$@\"; } && $cmd"
assert_eq "$rc.$err" "0." "'$cmd': exit status and stderr"
run e2fsck -fn "$tmp/printed/state.img"
assert_eq "$rc" 0 "e2fsck -fn of the printed command's state: $out $err"
ro_loop=$(timeout "$T" losetup -f --show -r "$tmp/printed/state.img")
assert_match "$ro_loop" '^/dev/loop[0-9]+$' "losetup -r of the printed command's state"
run mount -o ro "$ro_loop" "$tmp/ro"
assert_eq "$rc" 0 "mount -o ro of the printed command's state: $err"
# what the report found at that point, path by path: "empty file"
found=$(awk -v p="$first:" '$1 == p { on = 1; next } on && /^$/ { exit } on && / found empty file/ { sub(":", "", $2); print $2 }' <<<"$text")
assert_match "$found" 'f00' "files the report found empty at $first"
for f in $found; do
  [ -f "$tmp/ro/$f" ] && [ ! -s "$tmp/ro/$f" ] || fail "$f is not empty in the printed command's state"
done
umount_ro
detach_ro

# --- Refused: no filesystem ------------------------------------------------
# record 0, before mkfs wrote a superblock
run powercut replay "$log" --at 0 -o "$tmp/none.img" --recovered
# exit 2, one line that says why, and no image
assert_eq "$rc" 2 "--recovered with no filesystem: exit status (stderr: $err)"
assert_eq "$(wc -l <<<"$err")" 1 "--recovered with no filesystem: lines of stderr: $err"
assert_match "$err" '^powercut replay: --at 0: blkid: no filesystem found: .*ext2/3/4' "--recovered with no filesystem: why"
[ ! -e "$tmp/none.img" ] || fail "--recovered with no filesystem wrote an image"
assert_eq "$(ls "$tmp" | grep -c 'none\.img')" 0 "files left by the refused replay"

# --- Refused: a fast_commit journal that needs replay ----------------------
log=$tmp/fc.log
mount_ext4 64M
# made again, with room for fast commits in its journal
timeout "$T" umount "$mnt"
run mkfs.ext4 -q -F -b 4096 -O fast_commit -E lazy_itable_init=0,lazy_journal_init=0 "$loop"
assert_eq "$rc" 0 "mkfs.ext4 -O fast_commit: $out $err"
timeout "$T" mount "$loop" "$mnt"
for f in x y z; do
  head -c 5000 /dev/urandom >"$mnt/$f"
  sync "$mnt/$f"                # fsync: a fast commit
done
unmount_ext4
stop_recorder
run powercut check "$log" --judge ext2fs --json "$tmp/fc.json"
fc=$(json "$tmp/fc.json" '" ".join(p["id"] for p in r["points"] if any("fast commits" in e for e in p["evidence"]))' | awk '{ print $1 }')
# the check does not judge states whose fast commits need replay
assert_match "$fc" '^[0-9]+' "a state with fast commits to replay (check: $out $err)"
run powercut replay "$log" --at "$fc" -o "$tmp/fc.img" --recovered
# recovered by the kernel: e2fsck -fn passes, it mounts read-only
assert_eq "$rc" 0 "--recovered with fast commits: the kernel recovers it (stderr: $err)"
run e2fsck -fn "$tmp/fc.img"
assert_eq "$rc" 0 "--recovered with fast commits: e2fsck -fn ($out $err)"
ro=$(losetup -f --show -r "$tmp/fc.img")
cleanup_fn losetup -d "$ro"
mkdir "$tmp/fcmnt"
timeout "$T" mount -o ro "$ro" "$tmp/fcmnt"
cleanup_fn umount "$tmp/fcmnt"
assert_match "$(ls "$tmp/fcmnt" | tr '\n' ' ')" '^(lost\+found )((x|y|z) )*$' \
  "--recovered with fast commits: its tree (lost+found and the files fsync'd by then)"
timeout "$T" umount "$tmp/fcmnt"
# the raw state is still the default
run powercut replay "$log" --at "$fc" -o "$tmp/fcraw.img"
assert_eq "$rc" 0 "replay --at $fc without --recovered (stderr: $err)"
run cmp -s "$tmp/fc.img" "$tmp/fcraw.img"
assert_eq "$rc" 1 "the raw state differs from the recovered one"
# and the reports' rebuild line for such a state gives it, not --recovered
assert_match "$(json "$tmp/fc.json" '[p["replay"] for p in r["points"] if p["id"] == "'"$fc"'"][0]')" \
  " --at $fc -o state\.img\$" "the JSON report's replay command of $fc"
echo "needs recovery at $at (after the final mark, record $final), an orphan at $orphan, fast commits at $fc"
