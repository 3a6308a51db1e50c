#!/usr/bin/env bash
# test-check-scratch.sh: what a check or a replay leaves when it cannot
# finish.  A check killed with SIGKILL cannot remove its scratch folder
# (nor can its workers go on: they die with it); the next check removes
# it, and never one of a check still running.  A replay that fails (here:
# a file size limit) leaves no image, not even an empty one, and replaces
# none.
source "$top_srcdir/tests/functions.sh"
requires e2fsck
export TMPDIR=$tmp/scratch
mkdir "$TMPDIR"
log=$tmp/golden.log
cp "$top_srcdir/tests/golden/rename-noauto/recording.pclog" "$log"

# a check slowed down by its --verify command, killed part-way
"$POWERCUT" check "$log" --jobs 2 --verify 'sleep 0.3' -q >/dev/null 2>&1 &
pid=$!
cleanup_fn kill -9 "$pid"
wait_until 30 sh -c 'ls -d "$TMPDIR"/powercut-check.*/lock' || fail "no scratch folder with a lock"
kept=$(ls -d "$TMPDIR"/powercut-check.*)
# another check while it runs leaves its folder alone
run powercut check "$log" -q
assert_eq "$(ls -d "$TMPDIR"/powercut-check.* 2>/dev/null)" "$kept" "a running check's folder kept"
kill -9 "$pid"
wait "$pid" 2>/dev/null || true
assert_eq "$(ls -d "$TMPDIR"/powercut-check.* 2>/dev/null)" "$kept" "left by the killed check"
# the next check removes it (its workers died with it: they no longer
# hold its lock), and its own
run powercut check "$log" -q
assert_match "$rc" '^[01]$' "the next check ($err)"
assert_eq "$(ls -A "$TMPDIR")" "" "the next check removed it, and its own"

# a replay that fails leaves no image
echo "an older image" >"$tmp/old.img"
( trap '' XFSZ; ulimit -f 64; exec "$POWERCUT" replay "$log" --at end -o "$tmp/new.img" ) 2>"$tmp/err" && fail "a replay past the file size limit succeeded"
assert_match "$(cat "$tmp/err")" "new.img: File too large" "says why"
assert_eq "$(ls "$tmp" | grep -c 'new.img')" 0 "no image, no temporary file"
( trap '' XFSZ; ulimit -f 64; exec "$POWERCUT" replay "$log" --at end -o "$tmp/old.img" ) 2>/dev/null && fail "a replay past the file size limit succeeded"
assert_eq "$(cat "$tmp/old.img")" "an older image" "an image it could not replace is left as it was"
run powercut replay "$log" --at end -o "$tmp/new.img"
assert_eq "$rc" 0 "a replay ($err)"
assert_eq "$(stat -c %a "$tmp/new.img")" 600 "an image is its owner's only"
