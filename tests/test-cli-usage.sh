#!/usr/bin/env bash
# test-cli-usage.sh: --help/--version everywhere, and exit status 2 with a one-line error for misuse.
. "${top_srcdir:-$(dirname "$0")/..}/tests/functions.sh"
requires python3

# check_usage_error WHAT: the last run exited 2 with exactly one error line
# (besides a "try '... --help'" hint), lower case, with no full stop.
check_usage_error ()
{
  local lines msg
  # misuse exits with status 2
  assert_eq "$rc" 2 "$1: exit status"
  lines=$(grep -v "^try 'powercut" <<<"$err" || true)
  # there is exactly one error line
  assert_eq "$(grep -c . <<<"$lines")" 1 "$1: number of error lines in '$err'"
  msg=${lines#*: }
  # the message does not start with a capital
  assert_no_match "$msg" '^[A-Z]' "$1: error message"
  # the message has no full stop
  assert_no_match "$msg" '\.$' "$1: error message"
}

# The commands, as "powercut --help" lists them.
run powercut --help
commands=$(sed -n '/^commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p' <<<"$out" | tr '\n' ' ')
for sub in record mark stop log; do
  # powercut --help lists each command
  assert_match "$commands" "(^| )$sub " "commands in powercut --help"
done

for sub in "" $commands; do
  for opt in --help --version; do
    run powercut $sub $opt
    # --help and --version succeed for every command
    assert_eq "$rc" 0 "powercut $sub $opt: exit status (stderr: $err)"
    # they print to stdout
    assert_ne "$out" "" "powercut $sub $opt: output"
  done
  run powercut $sub --help
  # the help starts with a usage line
  assert_match "$(head -n 1 <<<"$out")" "^usage: powercut $sub" "powercut $sub --help"
done
run powercut --version
# --version names the program and its version
assert_match "$out" '^powercut [0-9]+\.[0-9]+' "powercut --version"

run powercut
# no command is a usage error
assert_eq "$rc" 2 "powercut with no arguments: exit status"

run powercut frobnicate
check_usage_error "unknown command"
# the error names the command
assert_match "$err" "frobnicate" "unknown command: error"

for sub in $commands; do
  run powercut $sub --frobnicate
  check_usage_error "powercut $sub --frobnicate"
  # the error names the option
  assert_match "$err" "frobnicate" "powercut $sub --frobnicate: error"
done

run powercut record --size 1M --socket "$tmp/s" --control "$tmp/c"
check_usage_error "record without --log"
# the error names the missing option
assert_match "$err" "--log" "record without --log: error"

touch "$tmp/image"
run powercut record --log "$tmp/l" --size 1M --base "$tmp/image" --socket "$tmp/s" --control "$tmp/c"
check_usage_error "record with --size and --base"
run powercut record --log "$tmp/l" --socket "$tmp/s" --control "$tmp/c"
check_usage_error "record with neither --size nor --base"
# no log was created by a usage error
assert_eq "$(ls "$tmp")" "image" "files left by failed starts"

for size in 12Q -1M 0 1000 abc; do
  run powercut record --log "$tmp/l" --size "$size" --socket "$tmp/s" --control "$tmp/c"
  check_usage_error "record --size $size"
  # the error names the bad size
  assert_match "$err" "$size" "record --size $size: error"
done

echo "not a log" >"$tmp/existing"
run powercut record --log "$tmp/existing" --size 1M --socket "$tmp/s" --control "$tmp/c"
check_usage_error "record over an existing log"
# the error says why and names the file
assert_match "$err" "$tmp/existing: file exists" "record over an existing log: error"
# the existing file is untouched
assert_eq "$(cat "$tmp/existing")" "not a log" "existing file after a refused record"
# and no socket was left behind
assert_eq "$(ls "$tmp" | tr '\n' ' ')" "existing image " "files left by a refused record"

# --force replaces an existing log; a second recorder on the same sockets is refused.
echo "not a log either" >"$tmp/forced"
log=$tmp/forced
start_recorder --size 1M --force
run powercut record --log "$tmp/other" --size 1M --socket "$sock" --control "$tmp/other.ctl"
check_usage_error "record on a socket in use"
# the error says a server is there and names the socket
assert_match "$err" "$sock: a server is already listening" "record on a socket in use: error"
run powercut record --log "$tmp/other" --size 1M --socket "$tmp/other.sock" --control "$ctl"
check_usage_error "record on a control socket in use"
# the error names the control socket
assert_match "$err" "$ctl: a server is already listening" "record on a control socket in use: error"
run powercut mark --control "$ctl" m1
# a mark name can be used once
assert_eq "$rc" 0 "powercut mark m1: exit status (stderr: $err)"
run powercut mark --control "$ctl" m1
check_usage_error "a second mark m1"
stop_recorder
read_log "$tmp/forced"
# the replaced log is a new, cleanly ended log with the one mark
assert_eq "$log_rc $(count mark) $(field end)" "0 1 clean (stopped)" "log made with --force"
# the refused recorders left no log behind
assert_eq "$(ls "$tmp/other" 2>&1 >/dev/null | grep -c 'No such file')" 1 "log of a refused recorder"

for name in "bad name" "" "a/b" "$(printf 'x%.0s' {1..129})"; do
  run powercut mark --control "$tmp/none.ctl" "$name"
  check_usage_error "mark '$name'"
done

run powercut mark --control "$tmp/none.ctl" m1
check_usage_error "mark with no recorder"
# the error says there is no recorder and names the socket
assert_match "$err" "$tmp/none.ctl: no recorder" "mark with no recorder: error"
run powercut stop --control "$tmp/none.ctl"
check_usage_error "stop with no recorder"
# the error says there is no recorder and names the socket
assert_match "$err" "$tmp/none.ctl: no recorder" "stop with no recorder: error"
# a stale socket file with no server behind it is no recorder either
python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$tmp/stale.ctl"
run powercut stop --control "$tmp/stale.ctl"
check_usage_error "stop on a stale socket"
# the error says there is no recorder
assert_match "$err" "no recorder" "stop on a stale socket: error"

run powercut log "$tmp/existing"
check_usage_error "log on a text file"
# the error says it is not a log and names the file
assert_match "$err" "$tmp/existing: not a powercut log" "log on a text file: error"
: >"$tmp/empty"
run powercut log "$tmp/empty"
check_usage_error "log on an empty file"
head -c 4096 /dev/zero >"$tmp/zeros"
run powercut log --dump "$tmp/zeros"
check_usage_error "log --dump on zeros"
run powercut log "$tmp/missing"
check_usage_error "log on a missing file"
run powercut log
check_usage_error "log without a file"
run powercut log "$tmp/empty" "$tmp/zeros"
check_usage_error "log with two files"
