#!/usr/bin/env bash
# test-check-base.sh: on a recording started from --base, check needs the right base image, and the replay command its report prints (with --base, with --keep-trimmed) rebuilds exactly the state that failed.
. "$top_srcdir/tests/functions.sh"
requires mkfs.ext4 debugfs qemu-io python3 cmp

# The base: an ext4 image made directly on a file, with bytes (0x5a) in its
# free last MiB so that a trim there shows.
truncate -s 64M "$tmp/base.img"
run mkfs.ext4 -q -F -b 4096 -E lazy_itable_init=0,lazy_journal_init=0 "$tmp/base.img"
# mkfs.ext4 makes the base filesystem
assert_eq "$rc" 0 "mkfs.ext4: exit status (stderr: $err)"
head -c 1M /dev/zero | tr '\0' '\132' |
  dd of="$tmp/base.img" bs=64k seek=$(( 63 * 16 )) conv=notrunc iflag=fullblock status=none
run debugfs -R 'imap <2>' "$tmp/base.img"
itable_block=$(sed -n 's/.*located at block \([0-9]*\),.*/\1/p' <<<"$out")
# debugfs finds the root inode's block
assert_match "$itable_block" '^[0-9]+$' "root inode block (debugfs: $out $err)"
cp "$tmp/base.img" "$tmp/base-copy.img"

start_recorder --base "$tmp/base.img"
run powercut mark --control "$ctl" start
# the first mark
assert_eq "$rc" 0 "powercut mark start: exit status (stderr: $err)"
# A trim of the free last MiB (a state that stays ok), then garbage over the
# root inode.
run qemu-io -t none -f raw "$uri" -c 'discard 63M 1M' -c flush \
    -c "write -P 0xa5 $(( itable_block * 4096 )) 4096" -c flush
# qemu-io's requests succeed
assert_eq "$rc" 0 "qemu-io: exit status (stdout: $out; stderr: $err)"
stop_recorder
# the recorder never modifies its base image
run cmp "$tmp/base.img" "$tmp/base-copy.img"
assert_eq "$rc" 0 "base image after recording: $out"

# --- The base image is needed, and must be the right one. -------------------
run powercut check "$log"
# without --base: exit 2, one line saying --base is needed
assert_eq "$rc $(grep -c . <<<"$err")" "2 1" "check without --base: exit status and lines (stderr: $err)"
# (the line asks for --base)
assert_match "$err" '^powercut check: .*--base' "check without --base: message"
cp "$tmp/base.img" "$tmp/other.img"
printf 'x' | dd of="$tmp/other.img" bs=1 seek=$(( 40 << 20 )) conv=notrunc status=none
run powercut check "$log" --base "$tmp/other.img"
# another image of the same size: exit 2, one line naming it
assert_eq "$rc $(grep -c . <<<"$err")" "2 1" "check with the wrong base: exit status and lines (stderr: $err)"
# (the line names the image and says it is not the base)
assert_match "$err" "^powercut check: .*other\\.img.*not the base image" "check with the wrong base: message"
run powercut replay "$log" --at end -o "$tmp/x.img"
# replay needs --base too: exit 2
assert_eq "$rc" 2 "replay without --base: exit status (stderr: $err)"

# --- The printed replay command rebuilds the failing state. ------------------
# run_printed CMD IMAGE-DIR: runs a printed "powercut replay ..." command in
# IMAGE-DIR with the program under test.
run_printed ()
{
  mkdir -p "$2"
  run bash -c "cd '$2' && powercut () { $POWERCUT_WRAPPER '$POWERCUT' \"\$@\"; } && $1"
}
# printed_cmd JSON ID: the replay command of point ID in a JSON report.
printed_cmd () { python3 -c 'import json,sys; [print(p["replay"]) for p in json.load(open(sys.argv[1]))["points"] if p["id"] == sys.argv[2]]' "$1" "$2"; }

run powercut check "$log" --base "$tmp/base.img" --json "$tmp/r.json"
text=$out
# the garbage is found: exit status 1
assert_eq "$rc" 1 "check --base: exit status (stdout: $out; stderr: $err)"
first=$(sed -n 's/^first failing crash point: \([^ ]*\) .*/\1/p' <<<"$text")
# the report names the first failing point
assert_match "$first" '^[0-9]+$' "first failing crash point (report: $text)"
cmd=$(grep -m1 -E "^ +rebuild: powercut replay .* --at $first " <<<"$text" | sed 's/^ *rebuild: //')
# the JSON report prints the same command
assert_eq "$(printed_cmd "$tmp/r.json" "$first")" "$cmd" "JSON replay command of $first"
run_printed "$cmd" "$tmp/printed"
# the printed command runs as printed (it names the base image)
assert_eq "$rc" 0 "'$cmd': exit status (stderr: $err)"
run powercut replay "$log" --base "$tmp/base.img" --at "$first" -o "$tmp/ref.img"
# replay --base rebuilds the state
assert_eq "$rc" 0 "replay --base --at $first: exit status (stderr: $err)"
run cmp "$tmp/printed/$(sed 's/.* -o //' <<<"$cmd")" "$tmp/ref.img"
# and rebuilds exactly that state
assert_eq "$rc" 0 "printed command's image vs replay --base: $out"

# --- With --keep-trimmed, the printed command keeps trimmed data too. ------
run powercut check "$log" --base "$tmp/base.img" --keep-trimmed --json "$tmp/t.json"
# the garbage is still found
assert_eq "$rc" 1 "check --keep-trimmed: exit status (stderr: $err)"
cmd=$(printed_cmd "$tmp/t.json" "$first")
run_printed "$cmd" "$tmp/printed-kt"
# the printed command runs
assert_eq "$rc" 0 "'$cmd': exit status (stderr: $err)"
run powercut replay "$log" --base "$tmp/base.img" --keep-trimmed --at "$first" -o "$tmp/ref-kt.img"
# replay --keep-trimmed rebuilds it with trimmed data kept
assert_eq "$rc" 0 "replay --keep-trimmed: exit status (stderr: $err)"
run cmp -s "$tmp/ref.img" "$tmp/ref-kt.img"
# (the trim matters: with and without --keep-trimmed the states differ)
assert_eq "$rc" 1 "images with and without --keep-trimmed"
run cmp "$tmp/printed-kt/$(sed 's/.* -o //' <<<"$cmd")" "$tmp/ref-kt.img"
# the printed command rebuilds the state that was checked, trimmed data kept
assert_eq "$rc" 0 "printed command of a --keep-trimmed check ('$cmd') vs replay --keep-trimmed: $out"
