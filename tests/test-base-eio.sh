#!/usr/bin/env bash
# test-base-eio.sh: a base image whose reads fail (nbdkit's error filter,
# seen as a file through nbdfuse) is a clear one-line error with exit 2 for
# record, replay and check, never a crash.
source "$top_srcdir/tests/functions.sh"
requires_root
requires nbdkit nbdfuse fusermount3

mkdir "$tmp/fuse"
nbdkit --unix "$tmp/bad.sock" --pidfile "$tmp/nbdkit.pid" --filter=error memory 1M \
       error-rate=100% error=EIO
wait_until "$T" test -s "$tmp/nbdkit.pid"
stop_nbdkit () { kill "$(cat "$tmp/nbdkit.pid")" 2>/dev/null || true; }
cleanup_fn stop_nbdkit
timeout "$T" nbdfuse "$tmp/fuse" --unix "$tmp/bad.sock" 2>/dev/null &
fuse_pid=$!
unmount_bad () { fusermount3 -u "$tmp/fuse" 2>/dev/null || true; wait "$fuse_pid" 2>/dev/null || true; }
cleanup_fn unmount_bad
wait_until "$T" test -e "$tmp/fuse/nbd"
bad=$tmp/fuse/nbd

run powercut record --log "$tmp/l" --base "$bad" --socket "$tmp/s" --control "$tmp/c"
# record: exit 2, one line naming the image and the error
assert_eq "$rc" 2 "record --base on a failing image"
assert_eq "$(grep -c . <<<"$err")" 1 "one line ($err)"
assert_match "$err" "$bad: Input/output error" "record message"
# and no server was left running
[ ! -S "$tmp/s" ] || fail "a socket was left behind"

# A log that started from a good copy of that image's size, then checked
# and replayed against the failing one.
truncate -s 1M "$tmp/good.img"
start_recorder --base "$tmp/good.img"
stop_recorder
run powercut replay "$log" --at end --base "$bad" -o "$tmp/x.img"
# replay: exit 2 with the error
assert_eq "$rc" 2 "replay --base on a failing image ($err)"
assert_match "$err" "Input/output error" "replay message"
run powercut check "$log" --base "$bad"
# check: exit 2 with the error
assert_eq "$rc" 2 "check --base on a failing image ($err)"
assert_match "$err" "Input/output error" "check message"
