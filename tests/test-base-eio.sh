#!/usr/bin/env bash
# test-base-eio.sh: a base image whose reads fail (nbdkit's error filter,
# seen as a file through nbdfuse) is a clear one-line error with exit 2 for
# record, replay and check, never a crash; one that starts failing while
# the recorder serves it gives the client EIO, and the server goes on;
# a log on a failing disk is a clear error too, and so is a base image
# changed while it is served.
source "$top_srcdir/tests/functions.sh"
requires_root
requires nbdkit nbdfuse fusermount3 qemu-io nbdcopy

# failing_image NAME PLUGIN-AND-ARGS...: serves an nbdkit plugin through
# its error filter (EIO) as the file $tmp/NAME/nbd, through nbdfuse.
failing_image ()
{
  local name=$1
  shift
  mkdir "$tmp/$name"
  nbdkit --unix "$tmp/$name.sock" --pidfile "$tmp/$name.pid" --filter=error "$@" \
         error-rate=100% error=EIO
  wait_until "$T" test -s "$tmp/$name.pid"
  cleanup_fn kill_pidfile "$tmp/$name.pid"
  timeout "$T" nbdfuse "$tmp/$name" --unix "$tmp/$name.sock" 2>/dev/null &
  cleanup_fn unmount_fuse "$tmp/$name" $!
  wait_until "$T" test -e "$tmp/$name/nbd"
}
kill_pidfile () { kill "$(cat "$1")" 2>/dev/null || true; }
unmount_fuse () { fusermount3 -u "$1" 2>/dev/null || true; wait "$2" 2>/dev/null || true; }

failing_image fuse memory 1M
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

# --- A base image that fails while being served.  Its reads fail only
# while $tmp/trigger exists; the pattern plugin gives it data everywhere,
# so no part of it is known to be zeros and all is read on demand.
kill_recorder
failing_image fuse2 pattern 1M error-file="$tmp/trigger"
nbdcopy "nbd+unix:///?socket=$tmp/fuse2.sock" "$tmp/expect.img"

log=$tmp/flaky.log
start_recorder --base "$tmp/fuse2/nbd"
touch "$tmp/trigger"
for client in qemu-io nbdcopy; do
  if [ $client = qemu-io ]; then
    run qemu-io -f raw -c 'read 8k 4k' "$uri"
  else
    run nbdcopy "$uri" "$tmp/got.img"
  fi
  # a read of the failing base image fails for the client
  assert_ne "$rc" 0 "$client read while the base fails"
  assert_match "$out $err" "Input/output error" "$client error while the base fails"
  # and the recorder is still serving
  alive "$recorder_pid" || fail "the recorder exited after a failed read"
done
# a sector the client wrote reads back while the base still fails
run qemu-io -f raw -c 'write -P 7 64k 4k' -c 'read -P 7 64k 4k' "$uri"
assert_eq "$rc" 0 "write and read back while the base fails ($out $err)"
assert_no_match "$out" "failed|error" "write and read back while the base fails"
# once the base reads again, so does the client, with the image's data
# and its own write
rm "$tmp/trigger"
run nbdcopy "$uri" "$tmp/got.img"
assert_eq "$rc" 0 "nbdcopy after the base recovered ($err)"
printf '\7%.0s' {1..4096} | dd of="$tmp/expect.img" bs=4k seek=16 conv=notrunc status=none
cmp "$tmp/got.img" "$tmp/expect.img" || fail "the device's content after the base recovered"
stop_recorder
read_log
# the recording is whole: one write, nothing for the failed reads
assert_eq "$log_rc $(count write) $(field end)" "0 1 clean (stopped)" "log after base read errors"

# --- A log, or a dm-log-writes file, whose reads fail: one line, exit 2
# (the reader maps the file; a failing read must not become SIGBUS).
for args in "log @" "log --dump @" "check @" "replay @ --at end -o $tmp/y.img" \
            "log --import dm-log-writes @ $tmp/imported.log"; do
  run powercut ${args/@/$bad}
  # a log on a failing disk: exit 2, and one line that says so
  assert_eq "$rc" 2 "powercut $args on a failing file ($err)"
  assert_eq "$(grep -c . <<<"$err")" 1 "powercut $args on a failing file: one line ($err)"
  assert_match "$err" "$bad: Input/output error" "powercut $args on a failing file"
done

# --- A base image changed while it is being served: what it holds now is
# not what the log says the recording started from, so reads of what was
# not read before fail, rather than serve a mix.
kill_recorder
head -c 1M /dev/urandom >"$tmp/changing.img"
log=$tmp/changing.log
start_recorder --base "$tmp/changing.img"
run qemu-io -f raw -c 'read 0 4k' "$uri"
assert_eq "$rc" 0 "read before the base changed ($out $err)"
printf 'changed' | dd of="$tmp/changing.img" bs=1 seek=600000 conv=notrunc status=none
run qemu-io -f raw -c 'read 512k 4k' "$uri"
assert_match "$out $err" "Input/output error" "read after the base changed"
# what was read before still reads
run qemu-io -f raw -c 'read 0 4k' "$uri"
assert_eq "$rc" 0 "read of what was read before the base changed ($out $err)"
stop_recorder
