#!/usr/bin/env bash
# test-check-corrupt.sh: garbage written over ext4's root inode after a kernel workload makes check fail (exit 1) at exactly the flush that made it durable, name it, print a replay command that rebuilds a state e2fsck -fn rejects, and --keep save that image.
. "$top_srcdir/tests/functions.sh"
requires_root
requires nbdfuse losetup mkfs.ext4 mount umount mountpoint fusermount3 debugfs e2fsck qemu-io python3 cmp

export TMPDIR=$tmp/scratch
mkdir "$TMPDIR"

# ext4 on loop over nbdfuse, recorded, with the mark mkfs.
mount_ext4 64M

# A small workload that is safe at every crash point: put FILE writes
# FILE.tmp, fsyncs it and renames it to FILE (see test-check-ext4.sh).
w=${mnt:?}
put () { cat >"$1.tmp"; sync "$1.tmp"; mv "$1.tmp" "$1"; sync "$1"; }
mkdir "$w/dir"
for i in 1 2 3; do seq 1 $(( i * 4000 )) | put "$w/dir/f$i"; done
mv "$w/dir/f1" "$w/g1"
rm "$w/dir/f2"
sync -f "$w"
run powercut mark --control "$ctl" files --manifest "$w" --sync
# a mark after the workload
assert_eq "$rc" 0 "powercut mark files: exit status (stderr: $err)"
timeout "$T" umount "$mnt"

# Where the root inode lives (debugfs: "located at block B, offset 0x...").
run debugfs -R 'imap <2>' "$loop"
itable_block=$(sed -n 's/.*located at block \([0-9]*\),.*/\1/p' <<<"$out")
# debugfs finds the root inode's block
assert_match "$itable_block" '^[0-9]+$' "root inode block (debugfs: $out $err)"
unmount_ext4

# --- The damage: garbage over the root inode's block, then a flush. ----------
run powercut mark --control "$ctl" garbage
# a mark before the damage
assert_eq "$rc" 0 "powercut mark garbage: exit status (stderr: $err)"
run qemu-io -t none -f raw "$uri" -c "write -P 0xa5 $(( itable_block * 4096 )) 4096" -c flush
# qemu-io writes the garbage
assert_eq "$rc" 0 "qemu-io: exit status (stdout: $out; stderr: $err)"
stop_recorder

dump_log
garbage_rec=$(awk '/ mark name=garbage / { print $1 }' <<<"$dump")
# the first flush after the garbage write is the first crash state that holds it
first_bad=$(awk -v g="$garbage_rec" -v o="offset=$(( itable_block * 4096 ))" '$1 > g && $4 == "write" && $5 == o { w = 1 } w && $4 == "flush" { print $1; exit }' <<<"$dump")
# the log has the mark, the garbage write and a flush after it
assert_match "$garbage_rec:$first_bad" '^[0-9]+:[0-9]+$' "garbage mark and first flush after it (dump: $dump)"

# Reading the JSON report.
points () { python3 -c 'import json,sys; [print(p["id"], p["record"], p["verdict"], p["same_as"] or "-") for p in json.load(open(sys.argv[1]))["points"]]' "$1"; }
total () { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["totals"][sys.argv[2]])' "$1" "$2"; }
evidence () { python3 -c 'import json,sys; [print(l) for p in json.load(open(sys.argv[1]))["points"] if p["id"] == sys.argv[2] for l in p["evidence"]]' "$1" "$2"; }

run powercut check "$log" --json "$tmp/r.json"
text=$out
# check finds the damage: exit status 1
assert_eq "$rc" 1 "powercut check: exit status (stdout: $out; stderr: $err)"
pts=$(points "$tmp/r.json")
# every crash point before the damage is ok
assert_eq "$(awk -v b="$first_bad" '$2 < b && $3 != "ok"' <<<"$pts" | tr '\n' ';')" "" "points before $first_bad not ok"
# every crash point from the damage on is corrupt or unmountable
assert_eq "$(awk -v b="$first_bad" '$2 >= b && $3 != "fs-corrupt" && $3 != "unmountable"' <<<"$pts" | tr '\n' ';')" "" "points from $first_bad on that are not failing"
# the damage is found at its flush, and there are ok points before it
assert_eq "$(awk -v b="$first_bad" '$2 == b { print $3 != "ok" } $2 < b { ok = 1 } END { print ok + 0 }' <<<"$pts" | tr '\n' ' ')" "1 1 " "verdict at $first_bad and ok points before (points: $pts)"
nfail=$(awk '$3 != "ok"' <<<"$pts" | wc -l)
# the totals count the failing points
assert_eq "$(( $(total "$tmp/r.json" fs-corrupt) + $(total "$tmp/r.json" unmountable) ))" "$nfail" "totals fs-corrupt + unmountable"
# e2fsck's first lines are kept as evidence
assert_ne "$(evidence "$tmp/r.json" "$first_bad")" "" "evidence of $first_bad"
verdict=$(awk -v b="$first_bad" '$2 == b { print $3 }' <<<"$pts")
# the text report names the first failing crash point
assert_match "$text" "^first failing crash point: $first_bad \\($verdict\\)\$" "text report"
replay_cmd=$(grep -m1 -E "^ +rebuild: powercut replay .* --at $first_bad " <<<"$text" | sed 's/^ *rebuild: //')
# and prints the command that rebuilds it: as a reboot leaves it if the
# check recovered it (fs-corrupt), raw if it could not (unmountable)
recovered=' --recovered'
[ "$verdict" != unmountable ] || recovered=
assert_match "$replay_cmd" "^powercut replay [^ ]+ --at $first_bad -o [^ ]+$recovered\$" "replay command in the text report (report: $text)"

# The printed command, run as printed (with the program under test),
# rebuilds an image that e2fsck rejects too.
mkdir "$tmp/replay"
run bash -c "cd '$tmp/replay' && powercut () { $POWERCUT_WRAPPER '$POWERCUT' \"\$@\"; } && $replay_cmd"
# the replay command works
assert_eq "$rc" 0 "$replay_cmd: exit status (stderr: $err)"
# (recovered, it says e2fsck -fn still finds errors)
[ -z "$recovered" ] || assert_match "$err" '^powercut replay: state\.img: e2fsck -fn finds errors in the state as a reboot leaves it$' "$replay_cmd: stderr"
state_img=$tmp/replay/$(sed 's/.* -o \([^ ]*\).*/\1/' <<<"$replay_cmd")
run e2fsck -fn "$state_img"
# e2fsck -fn finds errors in it (exit status 4: errors left uncorrected)
assert_ge "$rc" 4 "e2fsck -fn on the rebuilt state: exit status (stdout: $out)"
# while the state right before the damage is clean
run powercut replay "$log" --at mark:garbage -o "$tmp/before.img"
# (replay at the mark before the damage)
assert_eq "$rc" 0 "replay --at mark:garbage: exit status (stderr: $err)"
run e2fsck -fn "$tmp/before.img"
# e2fsck -fn accepts the state before the damage
assert_eq "$rc" 0 "e2fsck -fn on the state before the damage: exit status (stdout: $out)"

# --- --keep DIR saves the failing images, and only those. --------------------
run powercut check "$log" --keep "$tmp/keep" --json "$tmp/k.json" -q
# the same verdict with --keep
assert_eq "$rc" 1 "check --keep: exit status (stderr: $err)"
# -q: no text report
assert_eq "$out" "" "check -q: stdout"
kpts=$(points "$tmp/k.json")
# --keep changes no verdict
assert_eq "$kpts" "$pts" "points with --keep"
saved=$(ls "$tmp/keep" | sort | tr '\n' ' ')
# one image per failing point whose image was checked (the others say "same_as")
assert_eq "$saved" "$(awk '$3 != "ok" && $4 == "-" { print "state-" $1 ".img" }' <<<"$kpts" | sort | tr '\n' ' ')" "images in the keep directory"
for f in "$tmp"/keep/state-*.img; do
  id=${f##*/state-}; id=${id%.img}
  run powercut replay "$log" --at "$id" -o "$tmp/kept-ref.img"
  run cmp "$f" "$tmp/kept-ref.img"
  # each saved image is the crash state, as replay rebuilds it
  assert_eq "$rc" 0 "$f vs replay --at $id: $out"
  run e2fsck -fn "$f"
  # and e2fsck -fn rejects it
  assert_ge "$rc" 4 "e2fsck -fn $f: exit status (stdout: $out)"
done
# check cleans up its scratch files
assert_eq "$(ls -A "$TMPDIR" | tr '\n' ' ')" "" "left in \$TMPDIR after check"
